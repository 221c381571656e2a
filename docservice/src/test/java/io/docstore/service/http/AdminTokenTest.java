package io.docstore.service.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.service.ServiceFixture;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** With an admin token configured, every admin request needs it; the read port never does. */
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
      assertThat(s.adminGet("/metrics").statusCode()).isEqualTo(401);
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
