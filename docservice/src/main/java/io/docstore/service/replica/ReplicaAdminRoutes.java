package io.docstore.service.replica;

import io.docstore.service.http.Responses;
import io.docstore.service.http.Routes;
import io.docstore.service.metrics.StatsJson;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * A replica's admin port: {@code /healthz}, {@code /readyz}, {@code /stats}, {@code /metrics}. Every
 * write path of the primary's admin API ({@code PUT}, {@code DELETE}, {@code POST}) answers 403: a
 * replica takes its data only from the primary. Stateless; thread-safe.
 */
final class ReplicaAdminRoutes implements Routes {

  private final Supplier<Object> stats;
  private final BooleanSupplier ready;
  private final PrometheusMeterRegistry registry;

  ReplicaAdminRoutes(Supplier<Object> stats, BooleanSupplier ready, PrometheusMeterRegistry registry) {
    this.stats = stats;
    this.ready = ready;
    this.registry = registry;
  }

  @Override
  public FullHttpResponse handle(FullHttpRequest req) throws Exception {
    HttpMethod m = req.method();
    if (!m.equals(HttpMethod.GET) && !m.equals(HttpMethod.HEAD)) {
      return Responses.error(HttpResponseStatus.FORBIDDEN, "this is a read replica: send writes to the primary's admin port");
    }
    String path = req.uri().split("\\?", 2)[0];
    return switch (path) {
      case "/healthz" -> Responses.json(HttpResponseStatus.OK, "{\"status\":\"up\"}");
      case "/readyz" -> ready.getAsBoolean()
          ? Responses.json(HttpResponseStatus.OK, "{\"status\":\"ready\"}")
          : Responses.json(HttpResponseStatus.SERVICE_UNAVAILABLE, "{\"status\":\"catching up\"}");
      case "/stats" -> Responses.json(HttpResponseStatus.OK, StatsJson.bytes(stats.get()));
      case "/metrics" -> Responses.bytes(HttpResponseStatus.OK, registry.scrape().getBytes(StandardCharsets.UTF_8),
          "text/plain; version=0.0.4; charset=utf-8");
      default -> path.startsWith("/docs")
          ? Responses.error(HttpResponseStatus.FORBIDDEN, "this is a read replica: send writes to the primary's admin port")
          : Responses.error(HttpResponseStatus.NOT_FOUND, "no such endpoint; try /stats, /metrics, /healthz, /readyz");
    };
  }
}
