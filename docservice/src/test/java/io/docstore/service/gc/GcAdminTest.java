package io.docstore.service.gc;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.service.ServiceFixture;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Pausing and resuming the space reclamation on a running service, as an operator does. */
class GcAdminTest {

  @TempDir Path dir;

  private static HttpResponse<String> post(ServiceFixture s, String path) throws Exception {
    return s.send(
        HttpRequest.newBuilder(s.admin(path)).POST(HttpRequest.BodyPublishers.noBody()).build());
  }

  @Test
  void pauseAndResumeShowInTheAnswerStatsAndMetrics() throws Exception {
    try (ServiceFixture s = ServiceFixture.start(dir)) {
      assertThat(s.adminGet("/stats").body()).contains("\"gc\"").contains("\"enabled\":true");
      HttpResponse<String> paused = post(s, "/admin/gc/pause");
      assertThat(paused.statusCode()).isEqualTo(200);
      assertThat(paused.body()).contains("\"paused\":true");
      assertThat(s.adminGet("/metrics").body()).contains("docstore_gc_paused 1.0");
      assertThat(s.adminGet("/stats").body()).contains("\"paused\":true");
      HttpResponse<String> resumed = post(s, "/admin/gc/resume");
      assertThat(resumed.body()).contains("\"paused\":false");
      assertThat(s.adminGet("/metrics").body())
          .contains("docstore_gc_paused 0.0")
          .contains("docstore_gc_reclaimed_bytes_total")
          .contains("docstore_gc_write_amplification");
      assertThat(s.adminGet("/admin/gc/pause").statusCode()).isEqualTo(405);
    }
  }
}
