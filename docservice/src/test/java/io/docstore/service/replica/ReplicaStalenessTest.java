package io.docstore.service.replica;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.docstore.service.Service;
import io.docstore.service.config.DocstoreConfig;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stalled replica of the issue, over real sockets as an operator runs it: a primary {@link
 * Service}, its queue served by scripts/rsync-primary, a {@link ReplicaServer}; the rsync daemon is
 * SIGKILLed while writes go on, the replica restarted while it is down, then the daemon restarted
 * on the same port. What {@code /readyz}, {@code /stats} and {@code /metrics} say throughout.
 */
class ReplicaStalenessTest {

  private static final Duration MAX_STALENESS = Duration.ofSeconds(1);
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private ReplicaServer replica(String source) throws Exception {
    return ReplicaServer.start(
        DocstoreConfig.load(null, ReplicaServerTest.config(tmp.resolve("replica"))),
        new ReplicaConfig(
            source,
            Duration.ofMillis(50),
            Duration.ofSeconds(1),
            Duration.ofMillis(200),
            MAX_STALENESS,
            "rsync"));
  }

  @Test
  void aKilledRsyncDaemonMakesTheReplicaStaleAndARestartedOneMakesItReadyAgain() throws Exception {
    Map<Integer, String> model = new ConcurrentHashMap<>();
    AtomicLong lastSeq = new AtomicLong();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<Throwable> writeFailure = new AtomicReference<>();
    try (Service primary =
        Service.start(
            DocstoreConfig.load(null, ReplicaServerTest.config(tmp.resolve("primary"))))) {
      RsyncDaemon daemon = RsyncDaemon.start(tmp.resolve("primary/queue"), tmp.resolve("rsyncd"));
      int port = daemon.port();
      String source = daemon.url();
      Thread writer =
          new Thread(
              () -> {
                try {
                  for (int n = 0; !stop.get(); n++) {
                    int id = n % 500;
                    String doc = "{\"id\":" + id + ",\"n\":" + n + "}";
                    HttpResponse<String> r =
                        ReplicaServerTest.send(
                            http, "PUT", primary.adminUrl() + "/docs/" + id, doc);
                    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                    model.put(id, doc);
                    lastSeq.set(JSON.readTree(r.body()).get("seq").asLong());
                    Thread.sleep(3);
                  }
                } catch (Throwable e) {
                  writeFailure.set(e);
                }
              },
              "writer");
      ReplicaServer r = replica(source);
      try {
        writer.start();
        String admin = "http://127.0.0.1:" + r.adminPort();
        awaitReady(admin, "200 {\"status\":\"ready\"}", 30);
        await(() -> lastSeq.get() > 0);
        assertThat(r.node().awaitSequence(lastSeq.get(), 20_000)).isTrue();
        awaitReady(admin, "200 {\"status\":\"ready\"}", 10);

        daemon.close(); // SIGKILL, as in the issue; the writes go on
        long killedAt = System.nanoTime();
        HttpResponse<String> stale = awaitReady(admin, "503 {\"status\":\"stale\"}", 20);
        JsonNode stats = stats(admin);
        assertThat(stats.get("lagSeconds").asDouble()).as(stats.toString()).isGreaterThan(1.0);
        assertThat(stats.get("secondsSinceLastSuccessfulPull").asDouble()).isGreaterThan(1.0);
        assertThat(stats.get("pullFailures").asLong()).isPositive();
        assertThat(stats.get("lastPullError").asText()).startsWith("rsync exit");
        assertThat(metric(admin, "docstore_replica_lag_seconds")).isGreaterThan(1.0);
        assertThat(metric(admin, "docstore_replica_ready")).isZero();
        assertThat(stale.statusCode()).isEqualTo(503);
        String read = "http://127.0.0.1:" + r.readPort();
        assertThat(ReplicaServerTest.send(http, "GET", read + "/docs/0", null).statusCode())
            .as("reads keep being served from the local copy")
            .isEqualTo(200);
        Thread.sleep(Math.max(0, 1500 - millisSince(killedAt)));
        double lagBefore = stats(admin).get("lagSeconds").asDouble();
        Thread.sleep(500);
        assertThat(stats(admin).get("lagSeconds").asDouble())
            .as("the lag keeps growing")
            .isGreaterThan(lagBefore + 0.3);

        // A restart while the daemon is still down: the primary's last declared sequence is kept,
        // and the replica is not ready (what it holds is older than the bound).
        long primaryDurable = stats(admin).get("primaryDurableSequence").asLong();
        assertThat(primaryDurable).isPositive();
        r.close();
        r = replica(source);
        admin = "http://127.0.0.1:" + r.adminPort();
        JsonNode restarted = stats(admin);
        assertThat(restarted.get("primaryDurableSequence").asLong())
            .as("restored from the manifest copy on disk: " + restarted)
            .isEqualTo(primaryDurable);
        awaitReady(admin, "503 {\"status\":\"stale\"}", 10);
        Thread.sleep(300);
        assertThat(get(admin + "/readyz")).isEqualTo("503 {\"status\":\"stale\"}");

        daemon = RsyncDaemon.start(tmp.resolve("primary/queue"), tmp.resolve("rsyncd"), port);
        awaitReady(admin, "200 {\"status\":\"ready\"}", 30);
        stop.set(true);
        writer.join();
        assertThat(writeFailure.get()).isNull();
        Thread.sleep(100); // the manifest publisher (20 ms) declares the last write durable
        assertThat(r.node().awaitSequence(lastSeq.get(), 20_000))
            .as(stats(admin).toString())
            .isTrue();
        for (Map.Entry<Integer, String> e : model.entrySet()) {
          HttpResponse<String> got =
              ReplicaServerTest.send(http, "GET", read(r) + "/docs/" + e.getKey(), null);
          assertThat(got.statusCode()).isEqualTo(200);
          assertThat(got.body()).isEqualTo(e.getValue());
        }
        assertThat(stats(admin).get("lagSeconds").asDouble()).isLessThan(1.0);
      } finally {
        stop.set(true);
        writer.join();
        r.close();
        daemon.close();
      }
    }
  }

  private static void await(java.util.function.BooleanSupplier done) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!done.getAsBoolean()) {
      assertThat(System.nanoTime()).as("timed out").isLessThan(deadline);
      Thread.sleep(10);
    }
  }

  private static String read(ReplicaServer r) {
    return "http://127.0.0.1:" + r.readPort();
  }

  private static long millisSince(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
  }

  private String get(String url) throws Exception {
    HttpResponse<String> r = ReplicaServerTest.send(http, "GET", url, null);
    return r.statusCode() + " " + r.body();
  }

  private JsonNode stats(String admin) throws Exception {
    return JSON.readTree(ReplicaServerTest.send(http, "GET", admin + "/stats", null).body());
  }

  private double metric(String admin, String name) throws Exception {
    String body = ReplicaServerTest.send(http, "GET", admin + "/metrics", null).body();
    Matcher m = Pattern.compile("(?m)^" + name + " (\\S+)$").matcher(body);
    assertThat(m.find()).as(name + " in /metrics").isTrue();
    return Double.parseDouble(m.group(1));
  }

  private HttpResponse<String> awaitReady(String admin, String want, int seconds) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (true) {
      HttpResponse<String> r = ReplicaServerTest.send(http, "GET", admin + "/readyz", null);
      if ((r.statusCode() + " " + r.body()).equals(want)) {
        return r;
      }
      assertThat(System.nanoTime())
          .as("waiting for /readyz " + want + ", last " + r.statusCode() + " " + r.body())
          .isLessThan(deadline);
      Thread.sleep(20);
    }
  }
}
