package io.docstore.service.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.service.ServiceFixture;
import java.io.InputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin page's files and lookups over HTTP on a primary with an admin token: the files go
 * without the token, as built into the jar, with their media types, never stored by the browser and
 * under a policy that allows only this origin's script; lookups need the token and answer the
 * document as written with its sequence.
 */
class AdminPageTest {

  @TempDir Path dir;

  @Test
  void theFilesGoWithoutTheTokenAndTheLookupsNeedIt() throws Exception {
    try (ServiceFixture s =
        ServiceFixture.start(dir, Map.of("docstore.http.admin.token", "s3cret"))) {
      Map<String, String> files =
          Map.of(
              "/ui", "index.html text/html; charset=utf-8",
              "/ui/app.js", "app.js text/javascript; charset=utf-8",
              "/ui/style.css", "style.css text/css; charset=utf-8");
      for (Map.Entry<String, String> f : files.entrySet()) {
        String[] nameAndType = f.getValue().split(" ", 2);
        HttpResponse<String> r = s.adminGet(f.getKey());
        assertThat(r.statusCode()).as(f.getKey()).isEqualTo(200);
        assertThat(r.body()).isEqualTo(resource(nameAndType[0]));
        assertThat(r.headers().firstValue("content-type")).hasValue(nameAndType[1]);
        assertThat(r.headers().firstValue("cache-control")).hasValue("no-store");
        assertThat(r.headers().firstValue("x-content-type-options")).hasValue("nosniff");
        assertThat(r.headers().firstValue("content-security-policy"))
            .hasValueSatisfying(
                csp -> assertThat(csp).contains("default-src 'none'", "script-src 'self'"));
      }
      assertThat(s.adminGet("/ui/").statusCode()).isEqualTo(401);
      assertThat(
              s.send(
                      HttpRequest.newBuilder(s.admin("/ui"))
                          .POST(HttpRequest.BodyPublishers.ofString("x"))
                          .build())
                  .statusCode())
          .as("only GET and HEAD of the page go without the token")
          .isEqualTo(401);

      String doc = "{\"title\":\"Line Cook\"}";
      HttpResponse<String> written =
          s.send(
              HttpRequest.newBuilder(s.admin("/docs/42"))
                  .header("Authorization", "Bearer s3cret")
                  .PUT(HttpRequest.BodyPublishers.ofString(doc))
                  .build());
      assertThat(written.statusCode()).isEqualTo(200);
      assertThat(s.adminGet("/lookup/42").statusCode()).isEqualTo(401);
      HttpResponse<String> looked =
          s.send(
              HttpRequest.newBuilder(s.admin("/lookup/42"))
                  .header("Authorization", "Bearer s3cret")
                  .build());
      assertThat(looked.statusCode()).isEqualTo(200);
      assertThat(looked.body()).isEqualTo(doc);
      assertThat(written.body()).isEqualTo("{\"id\":42,\"seq\":1}");
      assertThat(looked.headers().firstValue("etag")).hasValue("\"1\"");
      assertThat(looked.headers().firstValue("cache-control")).hasValue("no-store");
      assertThat(looked.headers().firstValue("content-type")).hasValue("application/json");
    }
  }

  private static String resource(String name) throws Exception {
    try (InputStream in = AdminPage.class.getResourceAsStream("/ui/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
