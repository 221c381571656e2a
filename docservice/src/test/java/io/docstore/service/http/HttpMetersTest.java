package io.docstore.service.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.service.ServiceFixture;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Requests counted and timed per port, route and status, as a user's Prometheus scrapes them from
 * {@code /metrics} after real HTTP requests.
 */
class HttpMetersTest {

  @TempDir Path dir;

  @Test
  void routesAreNamedWithoutTheirDocumentIds() {
    assertThat(HttpMeters.routeOf("/docs/123")).isEqualTo(HttpMeters.routeOf("/docs/9?x=1"));
    assertThat(HttpMeters.routeOf("/docs?ids=1,2")).isEqualTo(HttpMeters.routeOf("/docs"));
    assertThat(HttpMeters.routeOf("/docs/_bulk")).isNotEqualTo(HttpMeters.routeOf("/docs/1"));
    assertThat(HttpMeters.routeOf("/docs/")).isEqualTo(HttpMeters.routeOf("/anything"));
    assertThat(HttpMeters.routeOf("/healthz?verbose")).isNotEqualTo(HttpMeters.routeOf("/x"));
  }

  @Test
  void scrapedCountsFollowTheRequestsMade() throws Exception {
    try (ServiceFixture s = ServiceFixture.start(dir)) {
      for (int id = 1; id <= 3; id++) {
        assertThat(s.put(id, "{\"n\":" + id + "}").statusCode()).isEqualTo(200);
      }
      for (int i = 0; i < 5; i++) {
        assertThat(s.get("/docs/1").statusCode()).isEqualTo(200);
      }
      assertThat(s.get("/docs/999").statusCode()).isEqualTo(404);
      assertThat(s.get("/docs?ids=1,2").statusCode()).isEqualTo(200);
      assertThat(s.get("/docs/notanumber").statusCode()).isEqualTo(400);
      HttpResponse<String> metrics = s.adminGet("/metrics");
      String text = metrics.body();
      assertThat(count(text, "read", "/docs/{id}", 200)).isEqualTo(5);
      assertThat(count(text, "read", "/docs/{id}", 404)).isEqualTo(1);
      assertThat(count(text, "read", "/docs/{id}", 400)).isEqualTo(1);
      assertThat(count(text, "read", "/docs", 200)).isEqualTo(1);
      assertThat(count(text, "admin", "/docs/{id}", 200)).isEqualTo(3);
      assertThat(text)
          .as("a latency histogram with fixed buckets")
          .containsPattern(
              "docstore_http_requests_seconds_bucket\\{port=\"read\",route=\"/docs/\\{id}\","
                  + "status=\"200\",le=\"0\\.001\",?}");
    }
  }

  /** The scraped request count of one series, or -1 when it is absent. */
  private static long count(String scrape, String port, String route, int status) {
    Matcher m =
        Pattern.compile(
                "docstore_http_requests_seconds_count\\{port=\""
                    + port
                    + "\",route=\""
                    + Pattern.quote(route)
                    + "\",status=\""
                    + status
                    + "\",?} ([0-9.]+)")
            .matcher(scrape);
    return m.find() ? (long) Double.parseDouble(m.group(1)) : -1;
  }
}
