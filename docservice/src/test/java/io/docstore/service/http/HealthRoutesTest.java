package io.docstore.service.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.service.metrics.Metrics;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link HealthRoutes}: the exact answers of the ops endpoints the primary's and a replica's admin
 * ports share.
 */
class HealthRoutesTest {

  private final PrometheusMeterRegistry registry = Metrics.newRegistry();
  private final AtomicBoolean ready = new AtomicBoolean();
  private final HealthRoutes routes =
      new HealthRoutes(
          () -> Map.of("role", "test"), () -> ready.get() ? null : "warming up", registry);

  @AfterEach
  void close() {
    Metrics.close(registry);
  }

  @Test
  void answersEachOpsEndpoint() throws Exception {
    registry.counter("docstore.test.things").increment();
    check(
        routes.handle("/healthz", HttpMethod.GET), 200, "application/json", "{\"status\":\"up\"}");
    check(
        routes.handle("/readyz", HttpMethod.GET),
        503,
        "application/json",
        "{\"status\":\"warming up\"}");
    ready.set(true);
    check(
        routes.handle("/readyz", HttpMethod.HEAD),
        200,
        "application/json",
        "{\"status\":\"ready\"}");
    check(routes.handle("/stats", HttpMethod.GET), 200, "application/json", "{\"role\":\"test\"}");
    FullHttpResponse metrics = routes.handle("/metrics", HttpMethod.GET);
    assertThat(metrics.status().code()).isEqualTo(200);
    assertThat(metrics.headers().get(HttpHeaderNames.CONTENT_TYPE))
        .isEqualTo("text/plain; version=0.0.4; charset=utf-8");
    assertThat(body(metrics)).contains("docstore_test_things_total 1.0");
  }

  @Test
  void otherPathsAreNotItsAndOtherMethodsAre405() throws Exception {
    assertThat(routes.handle("/docs/1", HttpMethod.GET)).isNull();
    assertThat(routes.handle("/", HttpMethod.GET)).isNull();
    assertThat(routes.handle("/nope", HttpMethod.POST))
        .as("not an ops path: the caller's to answer")
        .isNull();
    for (String path : new String[] {"/healthz", "/readyz", "/stats", "/metrics"}) {
      assertThatThrownBy(() -> routes.handle(path, HttpMethod.POST))
          .as(path)
          .isInstanceOfSatisfying(
              BadRequest.class,
              e -> {
                assertThat(e.status()).isEqualTo(405);
                assertThat(e.getMessage()).isEqualTo("method not allowed here; allowed: GET, HEAD");
              });
    }
  }

  private static void check(FullHttpResponse r, int status, String contentType, String body) {
    assertThat(r.status().code()).isEqualTo(status);
    assertThat(r.headers().get(HttpHeaderNames.CONTENT_TYPE)).isEqualTo(contentType);
    assertThat(body(r)).isEqualTo(body);
    assertThat(r.headers().getInt(HttpHeaderNames.CONTENT_LENGTH)).isEqualTo(body.length());
  }

  private static String body(FullHttpResponse r) {
    try {
      return r.content().toString(StandardCharsets.UTF_8);
    } finally {
      r.release();
    }
  }
}
