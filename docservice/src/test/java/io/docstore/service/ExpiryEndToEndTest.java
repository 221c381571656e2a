package io.docstore.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.client.DocClient;
import io.docstore.service.testing.MemcachedProcess;
import java.net.InetSocketAddress;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Expiry as a user sets and sees it: {@code X-TTL} and {@code X-Expires-At} on PUT, {@code "ttl"}
 * and {@code "expiresAt"} on {@code _bulk} lines; the documents are served over HTTP and RPC, with
 * a real memcached in front, until their expiry and are 404 / missing from then on. Bad expiries
 * get a 400 with the reason.
 */
class ExpiryEndToEndTest {

  @TempDir Path dir;

  private static HttpRequest.Builder put(ServiceFixture s, long id, String json) {
    return HttpRequest.newBuilder(s.admin("/docs/" + id))
        .PUT(HttpRequest.BodyPublishers.ofString(json));
  }

  @Test
  void expiredDocumentsAre404OverHttpAndMissingOverRpcWithMemcachedInFront() throws Exception {
    try (MemcachedProcess mc = MemcachedProcess.start();
        ServiceFixture s =
            ServiceFixture.start(
                dir,
                Map.of(
                    "docstore.rpc.enabled",
                    true,
                    "docstore.cache.memcached.servers",
                    List.of("127.0.0.1:" + mc.port()),
                    "docstore.cache.memcached.timeout",
                    "500ms"));
        DocClient client =
            DocClient.builder()
                .servers(List.of(new InetSocketAddress("127.0.0.1", s.service.rpcPort())))
                .requestTimeout(Duration.ofSeconds(5))
                .build()) {
      long expiresAt = System.currentTimeMillis() + 3000;
      assertThat(s.send(put(s, 1, "{\"ttl\":1}").header("X-TTL", "2").build()).statusCode())
          .isEqualTo(200);
      assertThat(
              s.send(put(s, 2, "{\"at\":2}").header("X-Expires-At", "" + expiresAt).build())
                  .statusCode())
          .isEqualTo(200);
      HttpResponse<String> bulk =
          s.send(
              HttpRequest.newBuilder(s.admin("/docs/_bulk"))
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"id\":3,\"doc\":{\"bulk\":3},\"ttl\":2}\n"
                              + "{\"id\":4,\"doc\":{\"bulk\":4},\"expiresAt\":"
                              + expiresAt
                              + "}\n"
                              + "{\"id\":5,\"doc\":{\"stays\":5}}\n"))
                  .build());
      assertThat(bulk.statusCode()).isEqualTo(200);
      assertThat(bulk.body()).doesNotContain("error");

      // Before: served over both APIs (the reads fill memcached with the expiry).
      for (long id = 1; id <= 5; id++) {
        assertThat(s.get("/docs/" + id).statusCode()).as("doc %d", id).isEqualTo(200);
      }
      assertThat(client.getAll(new long[] {1, 2, 3, 4, 5})).doesNotContainNull();
      assertThat(s.get("/docs?ids=1,2,3,4,5").body()).contains("\"missing\":[]");

      long latest = expiresAt;
      while (System.currentTimeMillis() < latest) {
        Thread.sleep(50);
      }
      // After: gone from every read path, memcached's entries included; 5 stays.
      for (long id = 1; id <= 4; id++) {
        assertThat(s.get("/docs/" + id).statusCode()).as("doc %d", id).isEqualTo(404);
        assertThat(client.get(id)).as("doc %d over RPC", id).isNull();
      }
      assertThat(s.get("/docs?ids=1,2,3,4,5").body()).contains("\"missing\":[1,2,3,4]");
      assertThat(client.getAll(new long[] {1, 5})[0]).isNull();
      assertThat(s.get("/docs/5").statusCode()).isEqualTo(200);
      assertThat(s.adminGet("/metrics").body())
          .containsPattern("docstore_reads_expired_total [1-9]");
    }
  }

  @Test
  void badExpiriesAreRefusedWithTheReason() throws Exception {
    try (ServiceFixture s = ServiceFixture.start(dir)) {
      HttpResponse<String> notANumber = s.send(put(s, 1, "{}").header("X-TTL", "soon").build());
      assertThat(notANumber.statusCode()).isEqualTo(400);
      assertThat(notANumber.body()).contains("time to live").contains("soon");
      HttpResponse<String> both =
          s.send(put(s, 1, "{}").header("X-TTL", "5").header("X-Expires-At", "99").build());
      assertThat(both.statusCode()).isEqualTo(400);
      assertThat(both.body()).contains("not both");
      HttpResponse<String> negative = s.send(put(s, 1, "{}").header("X-Expires-At", "-5").build());
      assertThat(negative.statusCode()).isEqualTo(400);
      HttpResponse<String> bulk =
          s.send(
              HttpRequest.newBuilder(s.admin("/docs/_bulk"))
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"id\":1,\"op\":\"delete\",\"ttl\":5}\n"
                              + "{\"id\":2,\"doc\":{},\"ttl\":\"5\"}\n"
                              + "{\"id\":3,\"doc\":{},\"ttl\":0}\n"))
                  .build());
      assertThat(bulk.body())
          .contains("{\"line\":1,\"status\":400,\"error\":\"a delete carries no \\\"ttl\\\"")
          .contains("{\"line\":2,\"status\":400")
          .contains("{\"line\":3,\"status\":400");
      assertThat(s.get("/docs/1").statusCode()).isEqualTo(404); // nothing was written
    }
  }
}
