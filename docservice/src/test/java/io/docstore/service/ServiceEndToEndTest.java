package io.docstore.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.client.DocClient;
import io.docstore.client.Document;
import io.docstore.service.testing.MemcachedProcess;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole primary: HTTP writes, reads over HTTP and through DocClient's RPC, memcached on, killed
 * and back.
 */
class ServiceEndToEndTest {

  @TempDir Path dir;

  @Test
  void writesOverHttpAreReadableOverRpcWithMemcachedKilledAndRestarted() throws Exception {
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
                    "100ms"))) {
      for (int i = 0; i < 50; i++) {
        assertThat(s.put(i, "{\"v\":" + i + "}").statusCode()).isEqualTo(200);
      }
      try (DocClient client =
          DocClient.builder()
              .servers(List.of(new InetSocketAddress("127.0.0.1", s.service.rpcPort())))
              .requestTimeout(Duration.ofSeconds(5))
              .build()) {
        Document d = client.get(7);
        assertThat(new String(d.body(), StandardCharsets.UTF_8)).isEqualTo("{\"v\":7}");
        Document[] all = client.getAll(new long[] {1, 999, 49});
        assertThat(all[1]).isNull();
        assertThat(new String(all[2].body(), StandardCharsets.UTF_8)).isEqualTo("{\"v\":49}");

        mc.kill();
        // Cache down: writes still succeed, reads fall back to disk, over both APIs.
        assertThat(s.put(7, "{\"v\":\"seven\"}").statusCode()).isEqualTo(200);
        HttpResponse<String> g = s.get("/docs/7");
        assertThat(g.body()).isEqualTo("{\"v\":\"seven\"}");
        assertThat(new String(client.get(7).body(), StandardCharsets.UTF_8))
            .isEqualTo("{\"v\":\"seven\"}");

        mc.restart();
        // Back (empty): an update after the restart is served, never the version before it.
        assertThat(s.put(7, "{\"v\":\"again\"}").statusCode()).isEqualTo(200);
        for (int i = 0; i < 3; i++) {
          assertThat(s.get("/docs/7").body()).isEqualTo("{\"v\":\"again\"}");
          assertThat(new String(client.get(7).body(), StandardCharsets.UTF_8))
              .isEqualTo("{\"v\":\"again\"}");
        }
        assertThat(s.get("/docs?ids=7,8").body())
            .isEqualTo("{\"found\":{\"7\":{\"v\":\"again\"},\"8\":{\"v\":8}},\"missing\":[]}");
      }
    }
  }
}
