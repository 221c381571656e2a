package io.docstore.service.torture;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.TestSupport;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 1: kill -9 of the primary {@code serve} JVM at random instants under a mixed
 * PUT/DELETE/bulk load (20 iterations; 200 at {@code -Ddocstore.test.scale=10}). After every
 * restart each ID reads back as its last acknowledged version byte-exact (deletes 404) or as its
 * in-flight write, and the process serves writes again. Small segments and memtable make seals,
 * index flushes and checkpoints happen during the load, so kills land in them too.
 */
class TortureKillTest {

  static final List<String> SMALL_FILES =
      List.of(
          "-Ddocstore.queue.segment-size=1M",
          "-Ddocstore.queue.max-body=64K",
          "-Ddocstore.queue.block-size=4K",
          "-Ddocstore.index.memtable=64K",
          "-Ddocstore.index.checkpoint-interval=200ms");

  @TempDir Path dir;

  @Test
  void everyAcknowledgedWriteSurvivesKill9AtRandomInstants() throws Exception {
    long seed = TestSupport.seed("TortureKillTest");
    Random rnd = new Random(seed);
    int iterations = 20 * TestSupport.scale();
    Path data = dir.resolve("data");
    Path log = dir.resolve("serve.log");
    AckLedger ledger = new AckLedger();
    long verified = 0;
    long recoveryMax = 0;
    long kills = 0;
    for (int i = 0; i <= iterations; i++) {
      try (ServeJvm serve = ServeJvm.start(data, log, SMALL_FILES)) {
        recoveryMax = Math.max(recoveryMax, serve.startMillis);
        verified += ledger.check(new HttpReader(serve.readUrl));
        assertThat(ledger.failures()).as("losses after restart %d (seed %d)", i, seed).isEmpty();
        if (i == iterations) {
          break;
        }
        long ackedBefore = ledger.acknowledged();
        try (LoadClient load =
            new LoadClient(serve.adminUrl, ledger, seed + i, 3, 0, 200, 1500, true).start()) {
          long runFor = 100 + rnd.nextInt(700);
          long t0 = System.nanoTime();
          long deadline = t0 + 30_000_000_000L;
          // At least a few acknowledged writes per iteration, so every kill lands under load.
          while ((System.nanoTime() - t0 < runFor * 1_000_000L
                  || ledger.acknowledged() - ackedBefore < 10)
              && System.nanoTime() < deadline) {
            Thread.sleep(10);
          }
          serve.kill9();
          kills++;
        }
        assertThat(ledger.acknowledged())
            .as("the service acknowledged writes in iteration %d", i)
            .isGreaterThan(ackedBefore);
      }
    }
    Verdict.of(
            "kill9-random",
            iterations,
            kills,
            ledger,
            verified,
            recoveryMax,
            "ids=" + ledger.ids() + " seed=" + seed)
        .print();
    assertThat(ledger.failures()).isEmpty();
  }
}
