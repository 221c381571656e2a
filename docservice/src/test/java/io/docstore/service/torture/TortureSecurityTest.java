package io.docstore.service.torture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.service.ServiceFixture;
import io.docstore.service.config.ConfigError;
import io.docstore.service.config.DocstoreConfig;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The security defaults, each checked against the running service: the read port has no write path,
 * the admin port binds to loopback by default and needs the configured token (or refuses to start)
 * elsewhere, IDs are validated before any lookup, limits are enforced, and {@code serve} run as
 * root warns and names the risk; the rsync module replicas pull is read-only, loopback-only and
 * chrooted when run as root.
 */
class TortureSecurityTest {

  @TempDir Path dir;

  @Test
  void readPortHasNoWritePath() throws Exception {
    try (ServiceFixture s = ServiceFixture.start(dir)) {
      assertThat(s.put(1, "{\"v\":1}").statusCode()).isEqualTo(200);
      for (String method : List.of("PUT", "DELETE", "POST", "PATCH")) {
        for (String path : List.of("/docs/1", "/docs/_bulk", "/docs")) {
          HttpResponse<String> r =
              s.send(
                  HttpRequest.newBuilder(s.read(path))
                      .method(
                          method,
                          HttpRequest.BodyPublishers.ofString("{\"id\":1,\"doc\":{\"v\":2}}\n"))
                      .build());
          assertThat(r.statusCode()).as("%s %s on the read port", method, path).isIn(405, 404);
        }
      }
      assertThat(s.get("/docs/1").body()).isEqualTo("{\"v\":1}");
      assertThat(s.get("/stats").statusCode())
          .as("ops endpoints live on the admin port only")
          .isEqualTo(404);
    }
  }

  @Test
  void adminPortIsLoopbackByDefaultAndNeedsATokenElsewhere() throws Exception {
    DocstoreConfig defaults = DocstoreConfig.load();
    assertThat(defaults.adminAddress().getAddress().isLoopbackAddress()).isTrue();
    assertThat(defaults.readAddress().getAddress().isLoopbackAddress()).isTrue();
    assertThat(defaults.rpcAddress().getAddress().isLoopbackAddress()).isTrue();
    assertThatThrownBy(
            () -> ServiceFixture.config(dir, Map.of("docstore.http.admin.host", "0.0.0.0")))
        .isInstanceOf(ConfigError.class)
        .hasMessageContaining("token");
    // With a token (bound to loopback here: tests never listen beyond it) every admin request needs
    // it.
    try (ServiceFixture s =
        ServiceFixture.start(dir, Map.of("docstore.http.admin.token", "s3cret-token"))) {
      assertThat(s.put(1, "{\"v\":1}").statusCode()).isEqualTo(401);
      assertThat(s.adminGet("/stats").statusCode()).isEqualTo(401);
      assertThat(
              s.send(
                      HttpRequest.newBuilder(s.admin("/docs/1"))
                          .header("Authorization", "Bearer s3cret-tokeX")
                          .PUT(HttpRequest.BodyPublishers.ofString("{\"v\":1}"))
                          .build())
                  .statusCode())
          .isEqualTo(401);
      assertThat(
              s.send(
                      HttpRequest.newBuilder(s.admin("/docs/1"))
                          .header("Authorization", "Bearer s3cret-token")
                          .PUT(HttpRequest.BodyPublishers.ofString("{\"v\":1}"))
                          .build())
                  .statusCode())
          .isEqualTo(200);
      assertThat(s.get("/docs/1").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void idsAreValidatedAndLimitsEnforced() throws Exception {
    try (ServiceFixture s =
        ServiceFixture.start(
            dir,
            Map.of(
                "docstore.queue.max-body",
                "1K",
                "docstore.http.max-ids-per-request",
                10,
                "docstore.http.max-request-line",
                "4K"))) {
      for (String bad :
          List.of(
              "/docs/-1",
              "/docs/..%2F..%2Fetc%2Fpasswd",
              "/docs/1e3",
              "/docs/99999999999999999999",
              "/docs/%00",
              "/docs?ids=1,../x")) {
        assertThat(s.get(bad).statusCode()).as(bad).isEqualTo(400);
      }
      assertThat(s.put(1, "{\"v\":\"" + "x".repeat(2000) + "\"}").statusCode())
          .as("body over the limit")
          .isEqualTo(413);
      assertThat(s.get("/docs?ids=1,2,3,4,5,6,7,8,9,10,11").statusCode())
          .as("too many IDs")
          .isEqualTo(400);
      assertThat(s.get("/docs?ids=" + "1,".repeat(3000) + "1").statusCode())
          .as("request line over the limit")
          .isIn(400, 414);
      try (var stream = Files.walk(dir)) {
        assertThat(stream.map(p -> p.getFileName().toString()))
            .noneMatch(n -> n.contains("passwd"));
      }
    }
  }

  @Test
  void serveAsRootWarnsAndNamesTheRisk() throws Exception {
    Path log = dir.resolve("serve.log");
    try (ServeJvm serve = ServeJvm.start(dir.resolve("data"), log, List.of("-Duser.name=root"))) {
      assertThat(serve.readUrl).startsWith("http://127.0.0.1:");
    }
    String text = Files.readString(log);
    assertThat(text).contains("WARN").contains("running as root").contains("change any file");
  }

  @Test
  void rsyncModuleIsReadOnlyLoopbackAndChrootedWhenRoot() throws Exception {
    Path scripts = null;
    for (Path d = Path.of("").toAbsolutePath(); d != null && scripts == null; d = d.getParent()) {
      if (Files.isRegularFile(d.resolve("scripts/rsyncd.conf.template"))) {
        scripts = d.resolve("scripts");
      }
    }
    assertThat(scripts).as("scripts/rsyncd.conf.template").isNotNull();
    String conf = Files.readString(scripts.resolve("rsyncd.conf.template"));
    assertThat(conf)
        .containsPattern("(?m)^\\s*read only = yes")
        .containsPattern("(?m)^\\s*use chroot = @USE_CHROOT@")
        .containsPattern("(?m)^\\s*hosts deny = \\*");
    String script = Files.readString(scripts.resolve("rsync-primary"));
    assertThat(script)
        .contains("address=127.0.0.1")
        .contains("hosts=127.0.0.1")
        .containsPattern("\\[ \"\\$\\(id -u\\)\" -eq 0 \\] && chroot=yes");
  }
}
