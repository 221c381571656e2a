package io.docstore.service.http;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The requests of one HTTP port by route and status: {@code docstore_http_requests_seconds} (a
 * histogram with fixed buckets from 100 us to 5 s, and its count and sum), tagged {@code port}
 * ({@code read}, {@code admin}), {@code route} (the path with the document ID replaced: {@code
 * /docs/{id}}, {@code /docs}, {@code /docs/_bulk}, the ops endpoints, or {@code other}) and {@code
 * status}. The time is from the request's arrival to its response being handed to the connection.
 *
 * <p>Allocation-free per request once a (route, status) pair has been seen. Thread-safe.
 */
final class HttpMeters {

  private static final String[] ROUTES = {
    "/docs/{id}", "/docs", "/docs/_bulk", "/healthz", "/readyz", "/metrics", "/stats", "other"
  };

  private static final int DOC = 0;
  private static final int DOCS = 1;
  private static final int BULK = 2;
  private static final int OTHER = ROUTES.length - 1;

  private static final Duration[] BUCKETS = {
    Duration.ofNanos(100_000),
    Duration.ofNanos(250_000),
    Duration.ofNanos(500_000),
    Duration.ofMillis(1),
    Duration.ofNanos(2_500_000),
    Duration.ofMillis(5),
    Duration.ofMillis(10),
    Duration.ofMillis(25),
    Duration.ofMillis(50),
    Duration.ofMillis(100),
    Duration.ofMillis(250),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofSeconds(5)
  };

  private final MeterRegistry registry;
  private final String port;

  /** Timers by route and status code (route * 600 + status), made when first needed. */
  private final AtomicReferenceArray<Timer> timers =
      new AtomicReferenceArray<>(ROUTES.length * 600);

  HttpMeters(MeterRegistry registry, String port) {
    this.registry = registry;
    this.port = port;
  }

  /** The route of a request URI (path and query), as an index for {@link #record}. */
  static int routeOf(String uri) {
    int q = uri.indexOf('?');
    int end = q < 0 ? uri.length() : q;
    if (is(uri, end, "/docs")) {
      return DOCS;
    }
    if (is(uri, end, "/docs/_bulk")) {
      return BULK;
    }
    if (end > "/docs/".length() && uri.startsWith("/docs/")) {
      return DOC;
    }
    for (int r = 3; r < OTHER; r++) {
      if (is(uri, end, ROUTES[r])) {
        return r;
      }
    }
    return OTHER;
  }

  private static boolean is(String uri, int end, String path) {
    return end == path.length() && uri.startsWith(path);
  }

  /** One request of {@code route} answered {@code status} after {@code nanos}. */
  void record(int route, int status, long nanos) {
    int s = status >= 100 && status < 600 ? status : 599;
    Timer t = timers.get(route * 600 + s);
    if (t == null) {
      t = timer(route, s);
    }
    t.record(nanos, TimeUnit.NANOSECONDS);
  }

  private synchronized Timer timer(int route, int status) {
    Timer t = timers.get(route * 600 + status);
    if (t == null) {
      t =
          Timer.builder("docstore.http.requests")
              .description(
                  "HTTP requests by port, route and status: time from arrival to the response being"
                      + " handed to the connection")
              .tag("port", port)
              .tag("route", ROUTES[route])
              .tag("status", Integer.toString(status))
              .serviceLevelObjectives(BUCKETS)
              .register(registry);
      timers.set(route * 600 + status, t);
    }
    return t;
  }
}
