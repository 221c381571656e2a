package io.docstore.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.FaultInjectingFileSystem;
import io.docstore.io.NoSpaceException;
import io.docstore.io.SyncPolicy;
import io.docstore.io.TestSupport;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full disk at random points of WAL appends, WAL rotations and flushes: the writer gets a {@link
 * NoSpaceException}, retries the same batch (as the store's indexer does), and succeeds once space
 * is back, without a reopen; every acknowledged entry reads back, also after a power loss.
 */
class IndexDiskFullTest {

  @TempDir Path dir;

  @Test
  void writesResumeWithoutAReopenOnceSpaceIsBack() throws Exception {
    for (SyncPolicy policy : new SyncPolicy[] {SyncPolicy.ALWAYS, SyncPolicy.NONE}) {
      run(policy, dir.resolve(policy.mode().name()));
    }
  }

  private void run(SyncPolicy policy, Path d) throws Exception {
    long seed = TestSupport.seed("IndexDiskFullTest " + policy);
    SplittableRandom rnd = new SplittableRandom(seed);
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    IndexOptions opts =
        IndexOptions.builder()
            .fileSystem(fs)
            .syncPolicy(policy)
            .memTableBytes(4 * 1024)
            .maxFrozenTables(2)
            .build();
    Map<Long, Long> acked = new HashMap<>();
    int refused = 0;
    int rounds = 12 * TestSupport.scale();
    LsmIndex index = LsmIndex.open(d, opts);
    try {
      for (int round = 0; round < rounds; round++) {
        boolean full = rnd.nextInt(2) == 0;
        if (full) {
          fs.setSpaceLimit(rnd.nextInt(12_000));
        }
        long[] ids = null;
        long[] values = null;
        for (int b = 0; b < 20; b++) {
          if (ids == null) {
            int n = 1 + rnd.nextInt(200);
            ids = new long[n];
            values = new long[n];
            for (int i = 0; i < n; i++) {
              ids[i] = rnd.nextLong(20_000);
              values[i] = rnd.nextInt(10) == 0 ? LsmIndex.DELETED : rnd.nextLong(1L << 40);
            }
          }
          try {
            index.putAll(ids, values, ids.length);
            if (policy.mode() == SyncPolicy.Mode.NONE) {
              index.sync();
            }
            for (int i = 0; i < ids.length; i++) {
              acked.put(ids[i], values[i]);
            }
            ids = null;
          } catch (NoSpaceException e) {
            refused++; // the same batch is retried
          }
        }
        if (full) {
          fs.clearSpaceLimit();
        }
        while (ids != null) {
          try {
            index.putAll(ids, values, ids.length);
            index.sync();
            for (int i = 0; i < ids.length; i++) {
              acked.put(ids[i], values[i]);
            }
            ids = null;
          } catch (NoSpaceException e) {
            // a flush started under the limit may still hold back the writer for a moment
            Thread.sleep(20);
          }
        }
        check(index, acked, "round " + round + ", seed " + seed);
      }
      assertThat(refused).as("seed %d", seed).isPositive();
      index.flush();
      check(index, acked, "after flush, seed " + seed);
      System.out.println(
          "IndexDiskFullTest "
              + policy
              + ": "
              + rounds
              + " rounds, "
              + refused
              + " refused batches, "
              + acked.size()
              + " ids, "
              + index.stats().backgroundFailures()
              + " failed flush attempts");
    } finally {
      fs.crash();
      try {
        index.close();
      } catch (java.io.IOException expectedAfterCrash) {
        // handles died in the crash
      }
    }
    try (LsmIndex again = LsmIndex.open(d, opts)) {
      check(again, acked, "after power loss, seed " + seed);
    }
  }

  private static void check(LsmIndex index, Map<Long, Long> acked, String where) throws Exception {
    for (Map.Entry<Long, Long> e : acked.entrySet()) {
      long v = index.get(e.getKey());
      if (e.getValue() == LsmIndex.DELETED) {
        assertThat(v)
            .as("deleted id %d, %s", e.getKey(), where)
            .isIn(LsmIndex.DELETED, LsmIndex.ABSENT);
      } else {
        assertThat(v).as("id %d, %s", e.getKey(), where).isEqualTo(e.getValue());
      }
    }
  }
}
