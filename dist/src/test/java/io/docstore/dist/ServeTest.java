package io.docstore.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.ConfigFactory;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The unpacked tarball serves: {@code bin/docstore serve} with the shipped {@code
 * conf/docstore.conf} (only the ports and the data directory overridden) takes a PUT on the admin
 * port and answers the GET on the read port; on SIGTERM it drains and exits within the systemd
 * unit's TimeoutStopSec, with an exit status the unit counts as success.
 */
class ServeTest {

  @TempDir Path dir;

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  @Test
  void servesFromTheUnpackedTarballAndStopsOnSigterm() throws Exception {
    Path home = Tarball.unpack(dir);
    Path stderr = dir.resolve("serve.stderr");
    Process p =
        Tarball.launcher(
                home,
                Map.of(
                    "DOCSTORE_JAVA_OPTS",
                    "-Xmx256m -XX:MaxDirectMemorySize=512m -Ddocstore.index.page-cache=32M"
                        + " -Ddocstore.http.read.port=0 -Ddocstore.http.admin.port=0"
                        + " -Ddocstore.rpc.port=0"),
                "serve",
                "--data",
                dir.resolve("data").toString())
            .redirectError(stderr.toFile())
            .start();
    try {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      String read = null;
      String admin = null;
      String line;
      while ((read == null || admin == null) && (line = out.readLine()) != null) {
        String t = line.strip();
        if (t.startsWith("read ")) {
          read = t.split("\\s+")[1].replace("/docs/{id}", "");
        } else if (t.startsWith("admin ")) {
          admin = t.split("\\s+")[1].replaceAll("/docs/\\{id}.*", "");
        }
      }
      assertThat(read)
          .as("serve printed its URLs; stderr: %s", Files.readString(stderr))
          .isNotNull();
      assertThat(admin).isNotNull();

      String doc = "{\"title\":\"Line Cook\",\"company\":\"Initech\"}";
      HttpResponse<String> put =
          send(
              HttpRequest.newBuilder(URI.create(admin + "/docs/42"))
                  .PUT(HttpRequest.BodyPublishers.ofString(doc)));
      assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
      HttpResponse<String> get = send(HttpRequest.newBuilder(URI.create(read + "/docs/42")));
      assertThat(get.statusCode()).isEqualTo(200);
      assertThat(get.body()).isEqualTo(doc);

      // The launcher's JVM: G1, the tarball's logging and configuration, its lib/ (no Maven).
      String cmdline =
          Files.readString(Path.of("/proc", Long.toString(p.pid()), "cmdline")).replace('\0', ' ');
      assertThat(cmdline)
          .contains("-XX:+UseG1GC")
          .contains("-Dlogback.configurationFile=" + home.resolve("conf/logback.xml"))
          .contains("-cp " + home.resolve("lib") + "/*")
          .contains("--config " + home.resolve("conf/docstore.conf"));

      UnitFile unit = UnitFile.read(home.resolve("systemd/docstore.service"));
      long t0 = System.nanoTime();
      p.destroy(); // SIGTERM, as systemctl stop sends
      assertThat(p.waitFor(unit.seconds("TimeoutStopSec").toSeconds(), TimeUnit.SECONDS))
          .as("exits within the unit's TimeoutStopSec")
          .isTrue();
      assertThat(Duration.ofNanos(System.nanoTime() - t0))
          .as("drained for the shipped drain-period first")
          .isGreaterThanOrEqualTo(
              ConfigFactory.parseFile(home.resolve("conf/docstore.conf").toFile())
                  .getDuration("docstore.drain-period"));
      assertThat(unit.one("SuccessExitStatus").split("\\s+"))
          .contains(Integer.toString(p.exitValue()));
      assertThat(Files.readString(stderr)).contains("Service: stopped");
    } finally {
      if (p.isAlive()) {
        p.destroyForcibly().waitFor();
      }
    }
  }

  private HttpResponse<String> send(HttpRequest.Builder b)
      throws IOException, InterruptedException {
    return http.send(
        b.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
  }
}
