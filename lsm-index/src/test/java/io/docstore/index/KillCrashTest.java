package io.docstore.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.SyncPolicy;
import io.docstore.io.TestSupport;
import java.io.BufferedReader;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a real child JVM ({@link CrashChild}) while it writes, flushes and compacts, then reopens
 * and checks every batch acknowledged since the first run: all its puts and deletes are there, and
 * the one batch in flight is either wholly there or wholly absent (a batch is one WAL record).
 *
 * <p>Two kills in three are a SIGKILL after a random number (0-11) of acknowledgements, which can
 * land just after the child opened the index, in a WAL write, a flush or a compaction. The third
 * halts the child at a named kill point inside flush or compaction, each of the seven once per 21
 * kills; a kill point not reached within {@link #KILL_POINT_PATIENCE} batches fails the test (after
 * a SIGKILL and the check) instead of letting the child write until the timeout. The same directory
 * is reused across kills, so recovery of a recovered index is exercised too. 21 kills; 210 at
 * {@code -Ddocstore.test.scale=10}.
 */
class KillCrashTest {

  private static final List<String> KILL_POINTS =
      List.of(
          "index.flush.before-write",
          "index.flush.after-write",
          "index.flush.before-manifest",
          "index.flush.after-manifest",
          "index.compaction.before-write",
          "index.compaction.mid-write",
          "index.compaction.after-install");

  /**
   * Acknowledged batches after which a child armed with a kill point that did not fire is
   * SIGKILLed.
   */
  private static final int KILL_POINT_PATIENCE = 400;

  @TempDir Path dir;

  @Test
  @Timeout(value = 15, unit = TimeUnit.MINUTES)
  void everyAcknowledgedBatchSurvivesKills() throws Exception {
    long seed = TestSupport.seed("KillCrashTest");
    SplittableRandom rnd = new SplittableRandom(seed);
    int kills = 21 * TestSupport.scale();
    long nextBatch = 0;
    for (int k = 0; k < kills; k++) {
      String killPoint = k % 3 == 0 ? KILL_POINTS.get(k / 3 % KILL_POINTS.size()) : null;
      List<String> jvmArgs =
          killPoint != null
              ? List.of("-Ddocstore.killpoint=" + killPoint + "@" + (1 + rnd.nextInt(2)))
              : List.of();
      Process p =
          TestSupport.startJvm(CrashChild.class, jvmArgs, dir.toString(), Long.toString(nextBatch));
      long lastAck = nextBatch - 1;
      int stopAfter = killPoint != null ? KILL_POINT_PATIENCE : rnd.nextInt(12);
      boolean killedByTest = false;
      try (BufferedReader out = TestSupport.stdout(p)) {
        String line;
        int acks = 0;
        while (!killedByTest && (line = out.readLine()) != null) {
          if (line.startsWith("ACK ")) {
            lastAck = Long.parseLong(line.substring(4));
            acks++;
          }
          if ((line.equals("OPEN") || line.startsWith("ACK ")) && acks >= stopAfter) {
            TestSupport.kill9(p);
            killedByTest = true;
          }
        }
      }
      TestSupport.kill9(p);
      assertThat(p.exitValue()).as("child exit (kill %d)", k).isIn(137, 143, -1, 9);
      nextBatch = check(lastAck, seed, k);
      if (killPoint != null) {
        assertThat(killedByTest)
            .as(
                "kill point %s not reached within %d batches (kill %d, seed %d)",
                killPoint, KILL_POINT_PATIENCE, k, seed)
            .isFalse();
      }
    }
    System.out.printf(
        "kill crash: %d kills, batches 0..%d acknowledged and checked%n", kills, nextBatch - 1);
  }

  /**
   * Verifies batches 0..lastAck and those written after it; returns the first batch number to write
   * next. The child may have made batches durable past the last acknowledgement this test read
   * (killed before it printed theirs), so the durable end is found by probing an entry no later
   * batch deletes; every batch up to it is checked whole, and the next one must have left nothing.
   */
  private long check(long lastAck, long seed, int kill) throws Exception {
    IndexOptions opts =
        IndexOptions.builder().syncPolicy(SyncPolicy.NONE).memTableBytes(8 * 1024).build();
    try (LsmIndex index = LsmIndex.open(dir, opts)) {
      int probe = CrashChild.PUTS - 1; // never deleted (deletes touch the first DELETES entries)
      long lastDurable = lastAck;
      while (index.get(CrashChild.id(lastDurable + 1, probe))
          == CrashChild.value(lastDurable + 1, probe)) {
        lastDurable++;
      }
      for (int i = 0; i < CrashChild.PUTS; i++) {
        assertThat(index.get(CrashChild.id(lastDurable + 1, i)))
            .as(
                "batch %d, the first not durable, is all or nothing (kill %d, seed %d)",
                lastDurable + 1, kill, seed)
            .isEqualTo(LsmIndex.ABSENT);
      }
      for (long b = 0; b <= lastDurable; b++) {
        for (int i = 0; i < CrashChild.PUTS; i++) {
          long v = index.get(CrashChild.id(b, i));
          boolean deleted = i < CrashChild.DELETES && b + 3 <= lastDurable;
          if (deleted) {
            assertThat(v)
                .as("batch %d entry %d deleted (kill %d, seed %d)", b, i, kill, seed)
                .isIn(LsmIndex.DELETED, LsmIndex.ABSENT);
          } else {
            assertThat(v)
                .as("batch %d entry %d (kill %d, seed %d)", b, i, kill, seed)
                .isEqualTo(CrashChild.value(b, i));
          }
        }
      }
      return lastDurable + 1;
    }
  }
}
