package io.docstore.service.http;

import io.docstore.service.metrics.StatsJson;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Supplier;
import org.slf4j.LoggerFactory;

/**
 * The ops endpoints of an admin port, the same on a primary ({@link AdminRoutes}) and a replica:
 * {@code /healthz} (200 while the process answers), {@code /readyz} (200 while ready, else 503 with
 * the owner's word for why not), {@code /stats} (the owner's document as JSON) and {@code /metrics}
 * (the registry in the Prometheus text format). GET and HEAD only. Thread-safe.
 */
public final class HealthRoutes {

  private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

  private final Supplier<Object> stats;
  private final Supplier<String> notReady;
  private final PrometheusMeterRegistry registry;

  /**
   * @param stats the {@code /stats} document (serialised with Jackson)
   * @param notReady null while {@code /readyz} answers 200, else the {@code status} of its 503, a
   *     word or two that need no JSON escaping ({@code "starting"}, {@code "catching up"}, {@code
   *     "stale"})
   */
  public HealthRoutes(
      Supplier<Object> stats, Supplier<String> notReady, PrometheusMeterRegistry registry) {
    this.stats = stats;
    this.notReady = notReady;
    this.registry = registry;
  }

  /**
   * The response for {@code path} if it is an ops endpoint, else null.
   *
   * @throws BadRequest 405 for an ops endpoint asked with another method than GET or HEAD
   * @throws IOException when the {@code /stats} document cannot be serialised
   */
  public FullHttpResponse handle(String path, HttpMethod method) throws BadRequest, IOException {
    return switch (path) {
      case "/metrics" -> {
        requireGet(method);
        yield Responses.bytes(
            HttpResponseStatus.OK,
            registry.scrape().getBytes(StandardCharsets.UTF_8),
            PROMETHEUS_TEXT);
      }
      case "/healthz" -> {
        requireGet(method);
        yield Responses.json(HttpResponseStatus.OK, "{\"status\":\"up\"}");
      }
      case "/readyz" -> {
        requireGet(method);
        String why = notReady.get();
        yield why == null
            ? Responses.json(HttpResponseStatus.OK, "{\"status\":\"ready\"}")
            : Responses.json(
                HttpResponseStatus.SERVICE_UNAVAILABLE, "{\"status\":\"" + why + "\"}");
      }
      case "/stats" -> {
        requireGet(method);
        yield Responses.json(HttpResponseStatus.OK, StatsJson.bytes(stats.get()));
      }
      default -> null;
    };
  }

  private static void requireGet(HttpMethod m) throws BadRequest {
    if (!m.equals(HttpMethod.GET) && !m.equals(HttpMethod.HEAD)) {
      throw BadRequest.methodNotAllowed("GET, HEAD");
    }
  }

  /**
   * The drain on SIGTERM, the same on a primary and a replica: the caller has made {@code /readyz}
   * answer 503 "draining"; for {@code period} every port keeps answering, so a load balancer stops
   * sending requests before any port closes. Keeps an interrupt.
   */
  public static void drain(Duration period) {
    if (period.isZero()) {
      return;
    }
    LoggerFactory.getLogger(HealthRoutes.class)
        .info("draining for {} before closing the ports (/readyz answers 503)", period);
    try {
      Thread.sleep(period.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
