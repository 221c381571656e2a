package io.docstore.service.groups;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.service.ServiceFixture;
import io.docstore.service.testing.MemcachedProcess;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Field groups as a user sees them over HTTP, configured in {@code docstore.groups}: {@code
 * ?group=} on both read routes with an ETag per group version, 304 on a repeat, the full document
 * unchanged, 400 naming the known groups for an unknown one, 400 with the reason for a document
 * that is not a JSON object, and a deleted document gone from every group.
 */
class GroupsHttpTest {

  @TempDir Path dir;

  @Test
  void groupsAreServedOnBothRoutesWithTheirOwnEtags() throws Exception {
    try (ServiceFixture s =
        ServiceFixture.start(
            dir,
            Map.of(
                "docstore.groups.summary", List.of("title", "company"),
                "docstore.groups.pay", List.of("salary")))) {
      String doc = "{\"title\":\"Engineer\",\"text\":\"long description\",\"company\":\"ACME\"}";
      assertThat(s.put(1, doc).statusCode()).isEqualTo(200);
      assertThat(s.put(2, "{\"salary\":100,\"title\":\"Cook\"}").statusCode()).isEqualTo(200);

      HttpResponse<String> full = s.get("/docs/1");
      assertThat(full.body()).isEqualTo(doc);
      HttpResponse<String> summary = s.get("/docs/1?group=summary");
      assertThat(summary.statusCode()).isEqualTo(200);
      assertThat(summary.body()).isEqualTo("{\"title\":\"Engineer\",\"company\":\"ACME\"}");
      String etag = summary.headers().firstValue("ETag").orElseThrow();
      assertThat(etag).isNotEqualTo(full.headers().firstValue("ETag").orElseThrow());
      assertThat(etag).contains("summary");
      HttpResponse<String> again =
          s.send(
              HttpRequest.newBuilder(s.read("/docs/1?group=summary"))
                  .header("If-None-Match", etag)
                  .build());
      assertThat(again.statusCode()).isEqualTo(304);
      assertThat(s.get("/docs/1?group=pay").body()).isEqualTo("{}");

      HttpResponse<String> many = s.get("/docs?ids=1,2,3&group=summary");
      assertThat(many.statusCode()).isEqualTo(200);
      assertThat(many.body())
          .isEqualTo(
              "{\"found\":{\"1\":{\"title\":\"Engineer\",\"company\":\"ACME\"},"
                  + "\"2\":{\"title\":\"Cook\"}},\"missing\":[3]}");

      // From 2^62 on, keys are the documents' group keys: such an ID is refused, never served.
      HttpResponse<String> tooLarge = s.get("/docs/" + ((1L << 62) + 1));
      assertThat(tooLarge.statusCode()).isEqualTo(400);
      assertThat(tooLarge.body()).contains("2^62");
      assertThat(s.get("/docs?ids=1," + ((1L << 62) + 1)).statusCode()).isEqualTo(400);
      assertThat(s.put((1L << 62) + 1, "{\"title\":\"x\"}").statusCode()).isEqualTo(400);
      HttpResponse<String> bulk =
          s.send(
              HttpRequest.newBuilder(s.admin("/docs/_bulk"))
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"id\":"
                              + ((1L << 62) + 1)
                              + ",\"doc\":{\"title\":\"x\"}}\n{\"id\":9,\"doc\":{\"title\":\"y\"}}\n"))
                  .build());
      assertThat(bulk.statusCode()).isEqualTo(200);
      assertThat(bulk.body()).contains("2^62");
      assertThat(s.get("/docs/9?group=summary").body()).isEqualTo("{\"title\":\"y\"}");

      HttpResponse<String> unknown = s.get("/docs/1?group=nope");
      assertThat(unknown.statusCode()).isEqualTo(400);
      assertThat(unknown.body()).contains("summary, pay");
      assertThat(s.get("/docs?ids=1&group=nope").statusCode()).isEqualTo(400);

      HttpResponse<String> notObject = s.put(3, "[1,2,3]");
      assertThat(notObject.statusCode()).isEqualTo(400);
      assertThat(notObject.body()).contains("JSON object");

      assertThat(s.put(1, "{\"title\":\"Senior Engineer\"}").statusCode()).isEqualTo(200);
      HttpResponse<String> updated = s.get("/docs/1?group=summary");
      assertThat(updated.body()).isEqualTo("{\"title\":\"Senior Engineer\"}");
      assertThat(updated.headers().firstValue("ETag").orElseThrow()).isNotEqualTo(etag);

      String metrics = s.adminGet("/metrics").body();
      assertThat(metrics)
          .containsPattern("docstore_group_lookups_total\\{group=\"summary\"[^}]*\\} [1-9]")
          .containsPattern("docstore_group_found_total\\{group=\"pay\"[^}]*\\} 1.0")
          .contains("docstore_group_bytes_total{group=\"summary\"");
      assertThat(s.adminGet("/stats").body())
          .contains("\"groups\":{\"summary\":{\"fields\":[\"title\",\"company\"]");

      assertThat(s.delete(1).statusCode()).isEqualTo(200);
      assertThat(s.get("/docs/1?group=summary").statusCode()).isEqualTo(404);
      assertThat(s.get("/docs/1?group=pay").statusCode()).isEqualTo(404);
    }
  }

  /**
   * With a real memcached in front, a document's projections are cached under their own key: a
   * group read served from memcached after an update answers the new projection, never the old.
   */
  @Test
  void withMemcachedInFrontUpdatedProjectionsAreServedNotStaleOnes() throws Exception {
    try (MemcachedProcess mc = MemcachedProcess.start();
        ServiceFixture s =
            ServiceFixture.start(
                dir,
                Map.of(
                    "docstore.groups.summary", List.of("title"),
                    "docstore.cache.memcached.servers", List.of("127.0.0.1:" + mc.port()),
                    "docstore.cache.memcached.timeout", "500ms"))) {
      for (int v = 0; v < 5; v++) {
        assertThat(s.put(7, "{\"title\":\"v" + v + "\",\"text\":\"x\"}").statusCode())
            .isEqualTo(200);
        for (int read = 0; read < 3; read++) { // the first fills memcached, the others hit it
          assertThat(s.get("/docs/7?group=summary").body()).isEqualTo("{\"title\":\"v" + v + "\"}");
          assertThat(s.get("/docs?ids=7&group=summary").body())
              .isEqualTo("{\"found\":{\"7\":{\"title\":\"v" + v + "\"}},\"missing\":[]}");
          assertThat(s.get("/docs/7").body())
              .isEqualTo("{\"title\":\"v" + v + "\",\"text\":\"x\"}");
        }
      }
      assertThat(s.delete(7).statusCode()).isEqualTo(200);
      assertThat(s.get("/docs/7?group=summary").statusCode()).isEqualTo(404);
    }
  }

  @Test
  void withoutGroupsAGroupParameterIsABadRequest() throws Exception {
    try (ServiceFixture s = ServiceFixture.start(dir)) {
      assertThat(s.put(1, "{\"a\":1}").statusCode()).isEqualTo(200);
      HttpResponse<String> r = s.get("/docs/1?group=summary");
      assertThat(r.statusCode()).isEqualTo(400);
      assertThat(r.body()).contains("no field groups are configured");
    }
  }
}
