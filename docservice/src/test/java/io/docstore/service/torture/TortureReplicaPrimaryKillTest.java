package io.docstore.service.torture;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.docstore.client.Document;
import io.docstore.io.TestSupport;
import io.docstore.queue.format.BlockFormat;
import io.docstore.service.replica.ReplicaNode;
import io.docstore.service.replica.ReplicaOptions;
import io.docstore.service.replica.RsyncDaemon;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 6b: the primary {@code serve} JVM SIGKILLed mid-append while replicas pull from it. A
 * real rsync daemon ({@code scripts/rsync-primary}) serves the primary's queue directory
 * throughout; two replicas ({@link ReplicaNode}, in this JVM) pull it with the real rsync binary
 * every 100 ms. Per iteration the primary recovers on the same data directory, every ID reads back
 * from it as the ledger allows, a mixed PUT/DELETE/bulk load runs for a random 0.3-1.5 s, and the
 * primary is SIGKILLed under it. After the last recovery, once both replicas have applied the
 * primary's durable sequence: for every ID each replica serves exactly what the recovered primary
 * serves (same sequence and bytes, or absent on both), nothing acknowledged is lost on either, and
 * no replica ever found a divergence (a SIGKILL takes nothing the manifest declared). 3 kills by
 * default ({@code -Ddocstore.test.scale=N}: 3 x N).
 */
class TortureReplicaPrimaryKillTest {

  private static final int BLOCK = 4096;
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void replicasEqualTheRecoveredPrimaryAfterItIsKilledMidAppend() throws Exception {
    long seed = TestSupport.seed("TortureReplicaPrimaryKillTest");
    Random rnd = new Random(seed);
    int kills = 3 * TestSupport.scale();
    Path data = dir.resolve("primary");
    Files.createDirectories(data.resolve("queue"));
    Path log = dir.resolve("serve.log");
    List<String> args = new ArrayList<>(TortureKillTest.SMALL_FILES);
    args.add("-Ddocstore.replication.manifest-interval=20ms");
    AckLedger ledger = new AckLedger();
    List<ReplicaNode> replicas = new ArrayList<>();
    List<SimpleMeterRegistry> registries = new ArrayList<>();
    long verified = 0;
    long recoveryMax = 0;
    long t0 = System.nanoTime();
    try (RsyncDaemon daemon = RsyncDaemon.start(data.resolve("queue"), dir.resolve("rsyncd"))) {
      for (String name : List.of("a", "b")) {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        registries.add(registry);
        replicas.add(
            ReplicaNode.start(
                ReplicaOptions.builder(daemon.url(), dir.resolve(name))
                    .pullInterval(Duration.ofMillis(100))
                    .rsyncTimeout(Duration.ofSeconds(10))
                    .checkpointInterval(Duration.ofMillis(300))
                    .expectedBlockBytes(BlockFormat.HEADER_LENGTH + BLOCK)
                    .build(),
                registry));
      }
      for (int i = 0; i <= kills; i++) {
        try (ServeJvm serve = ServeJvm.start(data, log, args)) {
          recoveryMax = Math.max(recoveryMax, serve.startMillis);
          HttpReader primary = new HttpReader(serve.readUrl);
          verified += ledger.check(primary);
          assertThat(ledger.failures()).as("losses after restart %d (seed %d)", i, seed).isEmpty();
          if (i == kills) {
            long durable = durableSequence(serve.adminUrl);
            assertThat(durable).isPositive();
            for (ReplicaNode r : replicas) {
              assertThat(r.awaitSequence(durable, 120_000))
                  .as("replica reaches the recovered primary's sequence %d: %s", durable, r.stats())
                  .isTrue();
            }
            for (int k = 0; k < replicas.size(); k++) {
              ReplicaNode r = replicas.get(k);
              List<String> differ = differences(ledger.idArray(), primary, r);
              assertThat(differ).as("replica %d against the primary (seed %d)", k, seed).isEmpty();
              verified += ledger.check(id -> read(r, id), false);
              assertThat(ledger.failures()).as("replica %d (seed %d)", k, seed).isEmpty();
              assertThat(registries.get(k).counter("docstore.replica.divergences").count())
                  .as("divergences found by replica %d", k)
                  .isZero();
            }
            break;
          }
          long ackedBefore = ledger.acknowledged();
          try (LoadClient load =
              new LoadClient(serve.adminUrl, ledger, seed + i, 3, 0, 200, 1500, true).start()) {
            long runFor = 300 + rnd.nextInt(1200);
            long start = System.nanoTime();
            long deadline = start + TimeUnit.SECONDS.toNanos(30);
            while ((System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(runFor)
                    || ledger.acknowledged() - ackedBefore < 10)
                && System.nanoTime() < deadline) {
              Thread.sleep(10);
            }
            serve.kill9(); // mid-append: the load threads are writing
          }
          assertThat(ledger.acknowledged())
              .as("the primary acknowledged writes in iteration %d", i)
              .isGreaterThan(ackedBefore);
        }
      }
    } finally {
      for (ReplicaNode r : replicas) {
        r.close();
      }
    }
    Verdict.of(
            "primary-kill9-replicas",
            kills,
            kills,
            ledger,
            verified,
            recoveryMax,
            "replicas=2 ids="
                + ledger.ids()
                + " seconds="
                + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0)
                + " seed="
                + seed)
        .print();
    assertThat(ledger.failures()).isEmpty();
  }

  /** One line per ID whose state on the replica is not the primary's (sequence, bytes, absence). */
  private static List<String> differences(long[] ids, HttpReader primary, ReplicaNode replica)
      throws Exception {
    List<String> out = new ArrayList<>();
    for (long id : ids) {
      AckLedger.Read p = primary.read(id);
      AckLedger.Read r = read(replica, id);
      assertThat(p.status()).as("primary read of %d", id).isIn(200, 404);
      boolean same =
          p.status() == r.status()
              && (p.status() == 404 || (p.seq() == r.seq() && Arrays.equals(p.body(), r.body())));
      if (!same) {
        out.add(
            "id "
                + id
                + ": primary "
                + p.status()
                + " seq "
                + p.seq()
                + ", replica "
                + r.status()
                + " seq "
                + r.seq());
      }
    }
    return out;
  }

  private static AckLedger.Read read(ReplicaNode replica, long id) throws java.io.IOException {
    Document d = replica.get(id);
    return d == null
        ? new AckLedger.Read(404, -1, null)
        : new AckLedger.Read(200, d.sequence(), d.body());
  }

  /** The primary's durable sequence, from its admin {@code /stats}. */
  private static long durableSequence(String adminUrl) throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(adminUrl + "/stats"))
                    .timeout(Duration.ofSeconds(10))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return JSON.readTree(r.body()).get("durableSequence").asLong();
  }
}
