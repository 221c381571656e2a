package io.docstore.service.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.service.ServiceFixture;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With an admin token configured, every admin request needs it, except GET and HEAD of the probes
 * ({@code /healthz}, {@code /readyz}, {@code /metrics}); the read port never does.
 */
class AdminTokenTest {

  @TempDir Path dir;

  @Test
  void adminRequestsNeedTheBearerToken() throws Exception {
    try (ServiceFixture s =
        ServiceFixture.start(dir, Map.of("docstore.http.admin.token", "s3cret"))) {
      HttpResponse<String> none = s.put(1, "{}");
      assertThat(none.statusCode()).isEqualTo(401);
      assertThat(none.headers().firstValue("www-authenticate")).hasValue("Bearer");
      HttpResponse<String> wrong =
          s.send(
              HttpRequest.newBuilder(s.admin("/docs/1"))
                  .header("Authorization", "Bearer s3creT")
                  .PUT(HttpRequest.BodyPublishers.ofString("{}"))
                  .build());
      assertThat(wrong.statusCode()).isEqualTo(401);
      assertThat(s.adminGet("/stats").statusCode()).isEqualTo(401);
      // Probes need no credentials: a load balancer's health checks and Prometheus's scrapes.
      assertThat(s.adminGet("/healthz").statusCode()).isEqualTo(200);
      assertThat(s.adminGet("/readyz").statusCode()).isEqualTo(200);
      HttpResponse<String> metrics = s.adminGet("/metrics?name[]=x");
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.body()).contains("docstore_writes_total");
      assertThat(
              s.send(
                      HttpRequest.newBuilder(s.admin("/healthz"))
                          .method("HEAD", HttpRequest.BodyPublishers.noBody())
                          .build())
                  .statusCode())
          .isEqualTo(200);
      assertThat(
              s.send(
                      HttpRequest.newBuilder(s.admin("/metrics"))
                          .POST(HttpRequest.BodyPublishers.ofString("x"))
                          .build())
                  .statusCode())
          .as("only GET and HEAD of a probe path go without the token")
          .isEqualTo(401);
      assertThat(s.service.store().lastSequence()).isZero();
      HttpResponse<String> ok =
          s.send(
              HttpRequest.newBuilder(s.admin("/docs/1"))
                  .header("Authorization", "Bearer s3cret")
                  .PUT(HttpRequest.BodyPublishers.ofString("{}"))
                  .build());
      assertThat(ok.statusCode()).isEqualTo(200);
      assertThat(s.get("/docs/1").statusCode()).isEqualTo(200);
    }
  }
}
