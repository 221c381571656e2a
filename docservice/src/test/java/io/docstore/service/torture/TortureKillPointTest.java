package io.docstore.service.torture;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.TestSupport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Scenario 2: the primary dies at a named kill point ({@code -Ddocstore.killpoint}) inside a
 * segment seal, a segment roll, an index flush, a compaction or a space reclamation pass (between
 * its steps: relocated, checkpointed, hollow file written, renamed), reached under the mixed load
 * with small segments and memtable ({@code name@N} dies on the N-th hit: the first segment roll
 * happens at startup, before the service serves). The restarted service (without the kill point)
 * serves every acknowledged write byte-exact and accepts writes again.
 */
class TortureKillPointTest {

  @TempDir Path dir;

  /**
   * The space reclamation, on and eager (small segments, a pass every 200 ms, any garbage), for the
   * kill points inside it; on again after the restart, so it goes on from what the death left.
   */
  static final List<String> EAGER_GC =
      List.of(
          "-Ddocstore.gc.enabled=true",
          "-Ddocstore.gc.interval=200ms",
          "-Ddocstore.gc.target=1.0",
          "-Ddocstore.gc.min-garbage=0.05",
          "-Ddocstore.gc.reserve=0");

  /**
   * One seal, one flush, one compaction and one space reclamation point by default; every kill
   * point in long runs.
   */
  static List<String> killPoints() {
    if (TestSupport.scale() == 1) {
      return List.of(
          "queue.seal.beforeRename",
          "index.flush.before-manifest",
          "index.compaction.before-write",
          "queue.reclaim.beforeRename");
    }
    return List.of(
        "queue.block.afterWrite",
        "queue.seal.beforeFooter",
        "queue.seal.afterFooter",
        "queue.seal.beforeRename",
        "queue.seal.afterRename",
        "queue.seal.afterPublish",
        "queue.roll.afterCreate@2",
        "index.flush.before-write",
        "index.flush.after-write",
        "index.flush.before-manifest",
        "index.flush.after-manifest",
        "index.compaction.before-write",
        "index.compaction.mid-write",
        "index.compaction.after-install",
        "gc.relocated",
        "gc.checkpointed",
        "queue.reclaim.beforeRename",
        "queue.reclaim.afterRename",
        "gc.hollowed");
  }

  /** The server's flags: small files, and the space reclamation for its kill points. */
  private static List<String> flags(String killPoint) {
    List<String> args = new ArrayList<>(TortureKillTest.SMALL_FILES);
    if (killPoint.startsWith("gc.") || killPoint.startsWith("queue.reclaim.")) {
      args.addAll(EAGER_GC);
    }
    return args;
  }

  @ParameterizedTest
  @MethodSource("killPoints")
  void acknowledgedWritesSurviveADeathAtTheKillPoint(String killPoint) throws Exception {
    long seed = TestSupport.seed("TortureKillPointTest " + killPoint);
    Path data = dir.resolve("data");
    Path log = dir.resolve("serve.log");
    AckLedger ledger = new AckLedger();
    List<String> args = flags(killPoint);
    args.add("-Ddocstore.killpoint=" + killPoint);
    long t0;
    try (ServeJvm serve = ServeJvm.start(data, log, args);
        LoadClient load =
            new LoadClient(serve.adminUrl, ledger, seed, 3, 0, 3000, 3000, true).start()) {
      t0 = System.nanoTime();
      assertThat(serve.awaitExit(150)).as("kill point %s reached within 150 s", killPoint).isTrue();
      assertThat(serve.process.exitValue()).isEqualTo(137);
    }
    long deathMillis = (System.nanoTime() - t0) / 1_000_000;
    assertThat(Files.readString(log))
        .contains("kill point reached: " + killPoint.replaceAll("@.*", ""));
    long verified;
    long recovery;
    try (ServeJvm serve = ServeJvm.start(data, log, flags(killPoint))) {
      recovery = serve.startMillis;
      verified = ledger.check(new HttpReader(serve.readUrl));
      assertThat(ledger.failures())
          .as("losses after dying at %s (seed %d)", killPoint, seed)
          .isEmpty();
      long before = ledger.acknowledged();
      try (LoadClient load =
          new LoadClient(serve.adminUrl, ledger, seed + 1, 1, 100_000, 50, 100, false).start()) {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (ledger.acknowledged() - before < 20 && System.nanoTime() < deadline) {
          Thread.sleep(10);
        }
      }
      assertThat(ledger.acknowledged() - before)
          .as("writes resume after recovery")
          .isGreaterThanOrEqualTo(20);
      verified += ledger.check(new HttpReader(serve.readUrl));
    }
    Verdict.of(
            "killpoint " + killPoint,
            1,
            1,
            ledger,
            verified,
            recovery,
            "died_after_ms=" + deathMillis + " seed=" + seed)
        .print();
    assertThat(ledger.failures()).isEmpty();
  }
}
