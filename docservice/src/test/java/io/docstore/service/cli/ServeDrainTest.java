package io.docstore.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.service.torture.ServeJvm;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM to a real {@code serve} with a drain period: {@code /readyz} answers 503 "draining" while
 * the read and admin ports still answer, so a load balancer stops routing before any port closes;
 * then the process stops within the drain period plus its shutdown timeout.
 */
class ServeDrainTest {

  @TempDir Path dir;

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private HttpResponse<String> send(HttpRequest.Builder b) throws Exception {
    return http.send(
        b.timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void readinessGoesFirstAndThePortsCloseAfterTheDrainPeriod() throws Exception {
    try (ServeJvm serve =
        ServeJvm.start(
            dir.resolve("data"),
            dir.resolve("serve.log"),
            List.of(
                "-Ddocstore.drain-period=3s",
                "-Ddocstore.shutdown-timeout=5s",
                "-Ddocstore.http.admin.token=s3cret"))) {
      assertThat(
              send(HttpRequest.newBuilder(URI.create(serve.adminUrl + "/docs/1"))
                      .header("Authorization", "Bearer s3cret")
                      .PUT(HttpRequest.BodyPublishers.ofString("{\"a\":1}")))
                  .statusCode())
          .isEqualTo(200);
      URI readyz = URI.create(serve.adminUrl + "/readyz");
      assertThat(send(HttpRequest.newBuilder(readyz)).statusCode()).isEqualTo(200);

      long t0 = System.nanoTime();
      serve.process.destroy(); // SIGTERM
      HttpResponse<String> draining = null;
      while (System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(2)) {
        HttpResponse<String> r = send(HttpRequest.newBuilder(readyz));
        if (r.statusCode() == 503) {
          draining = r;
          break;
        }
        Thread.sleep(20);
      }
      assertThat(draining).as("/readyz went 503 soon after SIGTERM").isNotNull();
      assertThat(draining.body()).contains("draining");
      // Still within the drain period: every port answers, reads are served.
      HttpResponse<String> read =
          send(HttpRequest.newBuilder(URI.create(serve.readUrl + "/docs/1")));
      assertThat(read.statusCode()).isEqualTo(200);
      assertThat(read.body()).isEqualTo("{\"a\":1}");
      assertThat(send(HttpRequest.newBuilder(URI.create(serve.adminUrl + "/healthz"))).statusCode())
          .isEqualTo(200);
      long drainedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      assertThat(drainedMillis).as("checked within the drain period").isLessThan(3000);

      assertThat(serve.process.waitFor(3 + 5 + 5, TimeUnit.SECONDS))
          .as("serve exits after the drain period and its shutdown")
          .isTrue();
      long exitMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      assertThat(exitMillis)
          .as("the ports stayed open for the drain period")
          .isGreaterThanOrEqualTo(3000);
    }
  }
}
