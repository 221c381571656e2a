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
    killRandomly("kill9-random", SMALL_FILES, 20 * TestSupport.scale(), 0);
  }

  /**
   * The same with the space reclamation eager (a pass every 200 ms, any garbage, to a space
   * amplification of 1.0), so that kills land in passes: relocating, checkpointing, hollowing.
   * Deletes and overwrites must not come back (the ledger counts resurrections). 5 kills in the
   * default run, 50 in {@code scripts/torture --full}. The first run under load lasts until the
   * queue has 4 segments: the reclamation never takes the newest two, so with fewer it would have
   * nothing to do whatever the kills hit.
   */
  @Test
  void nothingIsLostOrResurrectedWhenKill9HitsTheSpaceReclamation() throws Exception {
    java.util.List<String> flags = new java.util.ArrayList<>(SMALL_FILES);
    flags.addAll(TortureKillPointTest.EAGER_GC);
    killRandomly("kill9-during-gc", flags, 5 * TestSupport.scale(), 4);
    long hollow;
    try (java.util.stream.Stream<Path> files =
        java.nio.file.Files.list(dir.resolve("data/queue"))) {
      hollow =
          files
              .filter(f -> f.getFileName().toString().endsWith(".sealed"))
              .filter(f -> f.toFile().length() == 100)
              .count();
    }
    assertThat(hollow).as("segments the reclamation replaced by hollow ones").isPositive();
  }

  /**
   * @param segmentsFirst the first run under load goes on until the queue holds this many segment
   *     files (0: no such wait)
   */
  private void killRandomly(String name, List<String> flags, int iterations, int segmentsFirst)
      throws Exception {
    long seed = TestSupport.seed("TortureKillTest " + name);
    Random rnd = new Random(seed);
    Path data = dir.resolve("data");
    Path log = dir.resolve("serve.log");
    AckLedger ledger = new AckLedger();
    long verified = 0;
    long recoveryMax = 0;
    long kills = 0;
    for (int i = 0; i <= iterations; i++) {
      try (ServeJvm serve = ServeJvm.start(data, log, flags)) {
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
          int segments = i == 0 ? segmentsFirst : 0;
          while ((System.nanoTime() - t0 < runFor * 1_000_000L
                  || ledger.acknowledged() - ackedBefore < 10
                  || segmentFiles(data.resolve("queue")) < segments)
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
            name,
            iterations,
            kills,
            ledger,
            verified,
            recoveryMax,
            "ids=" + ledger.ids() + " seed=" + seed)
        .print();
    assertThat(ledger.failures()).isEmpty();
  }

  private static long segmentFiles(Path queue) throws java.io.IOException {
    try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(queue)) {
      return files.filter(f -> f.getFileName().toString().startsWith("seg-")).count();
    }
  }
}
