package io.docstore.service.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.client.Document;
import io.docstore.service.metrics.Metrics;
import io.docstore.service.rpc.TestSource;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ReplicaAdminRoutes}: the shared ops endpoints and admin page, 403 for every write, and the
 * admin token.
 */
class ReplicaAdminRoutesTest {

  private final PrometheusMeterRegistry registry = Metrics.newRegistry();
  private final TestSource source =
      new TestSource()
          .put(new Document(7, 12, 0, "{\"on\":\"replica\"}".getBytes(StandardCharsets.UTF_8)));
  private final ReplicaAdminRoutes routes =
      new ReplicaAdminRoutes(
          source, () -> Map.of("role", "replica"), () -> "catching up", registry, "", null);

  @AfterEach
  void close() {
    Metrics.close(registry);
  }

  @Test
  void opsEndpointsAnswerAndWritesAreRefused() throws Exception {
    assertThat(send(HttpMethod.GET, "/healthz")).isEqualTo("200 {\"status\":\"up\"}");
    assertThat(send(HttpMethod.GET, "/readyz?verbose"))
        .isEqualTo("503 {\"status\":\"catching up\"}");
    assertThat(send(HttpMethod.HEAD, "/stats")).isEqualTo("200 {\"role\":\"replica\"}");
    String readOnly =
        "403 {\"error\":\"this is a read replica: send writes to the primary's admin port\"}";
    assertThat(send(HttpMethod.PUT, "/docs/1")).isEqualTo(readOnly);
    assertThat(send(HttpMethod.DELETE, "/docs/1")).isEqualTo(readOnly);
    assertThat(send(HttpMethod.POST, "/docs/_bulk")).isEqualTo(readOnly);
    assertThat(send(HttpMethod.POST, "/metrics"))
        .as("any write method, any path")
        .isEqualTo(readOnly);
    assertThat(send(HttpMethod.GET, "/docs/1"))
        .as("documents are read on the read port")
        .isEqualTo(
            "404 {\"error\":\"documents are read on this replica's read port; updates go to the"
                + " primary's admin port\"}");
    assertThat(send(HttpMethod.GET, "/nope"))
        .isEqualTo(
            "404 {\"error\":\"no such endpoint; try /ui, /stats, /metrics, /healthz, /readyz\"}");
  }

  /** The admin page and its lookups, from this replica's documents. */
  @Test
  void theAdminPageLooksUpTheReplicasDocuments() throws Exception {
    assertThat(send(HttpMethod.GET, "/ui")).startsWith("200 <!DOCTYPE html>");
    assertThat(send(HttpMethod.GET, "/lookup/7")).isEqualTo("200 {\"on\":\"replica\"}");
    assertThat(send(HttpMethod.GET, "/lookup/8"))
        .isEqualTo("404 {\"error\":\"document 8 not found\"}");
    assertThat(send(HttpMethod.GET, "/lookup/x")).startsWith("400 ");
  }

  /**
   * A configured admin token guards the replica's admin port as it does the primary's, probes
   * aside.
   */
  @Test
  void theConfiguredTokenIsRequired() throws Exception {
    ReplicaAdminRoutes guarded =
        new ReplicaAdminRoutes(
            source, () -> Map.of("role", "replica"), () -> null, registry, "s3cret", null);
    assertThat(send(guarded, HttpMethod.GET, "/stats", null))
        .isEqualTo("401 {\"error\":\"missing or wrong admin token\"}");
    assertThat(send(guarded, HttpMethod.GET, "/stats", "Bearer wrong")).startsWith("401 ");
    // The probes go without it, as on the primary.
    assertThat(send(guarded, HttpMethod.GET, "/metrics", null)).startsWith("200 ");
    assertThat(send(guarded, HttpMethod.GET, "/healthz", null)).startsWith("200 ");
    assertThat(send(guarded, HttpMethod.GET, "/readyz", null)).startsWith("200 ");
    assertThat(send(guarded, HttpMethod.GET, "/stats", "Bearer s3cret"))
        .isEqualTo("200 {\"role\":\"replica\"}");
    // The admin page itself holds no data; its lookups need the token.
    assertThat(send(guarded, HttpMethod.GET, "/ui", null)).startsWith("200 ");
    assertThat(send(guarded, HttpMethod.GET, "/lookup/7", null)).startsWith("401 ");
    assertThat(send(guarded, HttpMethod.GET, "/lookup/7", "Bearer s3cret"))
        .isEqualTo("200 {\"on\":\"replica\"}");
  }

  private String send(HttpMethod method, String uri) throws Exception {
    return send(routes, method, uri, null);
  }

  private static String send(ReplicaAdminRoutes routes, HttpMethod method, String uri, String auth)
      throws Exception {
    DefaultFullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, uri);
    if (auth != null) {
      req.headers().set("Authorization", auth);
    }
    try {
      FullHttpResponse r = routes.handle(req);
      try {
        return r.status().code() + " " + r.content().toString(StandardCharsets.UTF_8);
      } finally {
        r.release();
      }
    } finally {
      req.release();
    }
  }
}
