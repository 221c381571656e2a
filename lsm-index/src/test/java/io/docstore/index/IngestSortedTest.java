package io.docstore.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.index.bulk.SortedRun;
import io.docstore.io.FaultInjectingFileSystem;
import io.docstore.io.FileSystem;
import io.docstore.io.InterceptingFileSystem;
import io.docstore.io.SyncPolicy;
import io.docstore.io.TestSupport;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LsmIndex#ingestSorted}: bulk runs interleaved with puts, deletes, flushes and reopens
 * against a TreeMap model (newest wins both ways), and power loss at every step of an ingest
 * through the file-system seam (all of the run or none of it, never part).
 */
class IngestSortedTest {

  @TempDir Path dir;

  @Test
  void ingestedRunsWinOverOlderEntriesAndLoseToNewerOnes() throws Exception {
    long seed = TestSupport.seed("IngestSortedTest");
    SplittableRandom rnd = new SplittableRandom(seed);
    IndexOptions opts =
        IndexOptions.builder()
            .syncPolicy(SyncPolicy.NONE)
            .memTableBytes(16 * 1024)
            .bloomMemoryBytes(64 * 1024)
            .build();
    TreeMap<Long, Long> model = new TreeMap<>();
    LsmIndex index = LsmIndex.open(dir, opts);
    try {
      int ops = 12_000 * TestSupport.scale();
      for (int op = 0; op < ops; op++) {
        int r = rnd.nextInt(1000);
        if (r < 500) {
          long id = rnd.nextLong(20_000);
          long v = rnd.nextLong(Long.MAX_VALUE);
          index.put(id, v);
          model.put(id, v);
        } else if (r < 560) {
          long id = rnd.nextLong(20_000);
          index.delete(id);
          model.put(id, LsmIndex.DELETED);
        } else if (r < 565) {
          SortedRun run = new SortedRun(16);
          int n = 1 + rnd.nextInt(rnd.nextBoolean() ? 50 : 5_000);
          for (int i = 0; i < n; i++) {
            long id = rnd.nextLong(20_000);
            long v = rnd.nextInt(10) == 0 ? LsmIndex.DELETED : rnd.nextLong(Long.MAX_VALUE);
            run.add(id, v);
            model.put(id, v);
          }
          run.ingestInto(index);
        } else if (r < 990) {
          check(index, model, rnd.nextLong(20_100), "op " + op, seed);
        } else if (r < 993) {
          index.flush();
        } else if (r < 995) {
          index.close();
          index = LsmIndex.open(dir, opts);
        }
      }
      index.close();
      index = LsmIndex.open(dir, opts);
      for (long id : model.keySet()) {
        check(index, model, id, "after reopen", seed);
      }
      try (IndexCursor c = index.scan(0)) {
        for (Map.Entry<Long, Long> e : model.entrySet()) {
          if (e.getValue() == LsmIndex.DELETED) {
            continue;
          }
          assertThat(c.next()).as("seed %d", seed).isTrue();
          assertThat(c.id()).as("seed %d", seed).isEqualTo(e.getKey());
          assertThat(c.value()).as("seed %d", seed).isEqualTo(e.getValue());
        }
        assertThat(c.next()).as("seed %d", seed).isFalse();
      }
    } finally {
      index.close();
    }
  }

  @Test
  void rejectsUnsortedInput() throws Exception {
    try (LsmIndex index =
        LsmIndex.open(dir, IndexOptions.builder().syncPolicy(SyncPolicy.NONE).build())) {
      assertThatThrownBy(() -> index.ingestSorted(new long[] {2, 1}, new long[] {0, 0}, 2))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> index.ingestSorted(new long[] {1, 1}, new long[] {0, 0}, 2))
          .isInstanceOf(IllegalArgumentException.class);
      assertThat(index.indexSizes()).isEmpty();
    }
  }

  /**
   * Power loss after successive file-system operations of an ingest (every one or every other one,
   * at random): afterwards the index holds either the whole run or none of it (all of it once
   * ingestSorted returned), and the acknowledged writes before it.
   */
  @Test
  void powerLossDuringIngestKeepsAllOrNothing() throws Exception {
    long seed = TestSupport.seed("IngestSortedTest.powerLoss");
    SplittableRandom rnd = new SplittableRandom(seed);
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    Map<Long, Long> acked = new HashMap<>();
    int fullIngestOps = -1;
    for (int cut = 0; fullIngestOps < 0 || cut <= fullIngestOps; cut += 1 + rnd.nextInt(2)) {
      AtomicBoolean counting = new AtomicBoolean();
      AtomicInteger seen = new AtomicInteger();
      int limit = cut;
      FileSystem process =
          new InterceptingFileSystem(
              fs,
              (op, p) -> {
                if (counting.get() && seen.incrementAndGet() > limit) {
                  throw new IOException("process is dead (simulated crash): " + op + " " + p);
                }
              });
      IndexOptions opts =
          IndexOptions.builder()
              .fileSystem(process)
              .syncPolicy(SyncPolicy.ALWAYS)
              .memTableBytes(4 * 1024)
              .bloomMemoryBytes(32 * 1024)
              .build();
      LsmIndex index = LsmIndex.open(dir, opts);
      long[] ids = new long[100];
      long[] vals = new long[100];
      for (int i = 0; i < 100; i++) {
        ids[i] = rnd.nextLong(3_000);
        vals[i] = rnd.nextLong(Long.MAX_VALUE);
      }
      index.putAll(ids, vals, 100);
      for (int i = 0; i < 100; i++) {
        acked.put(ids[i], vals[i]);
      }
      index.flush();
      SortedRun run = new SortedRun(16);
      Map<Long, Long> batch = new HashMap<>();
      for (int i = 0; i < 500; i++) {
        long id = rnd.nextLong(3_000);
        long v = rnd.nextLong(Long.MAX_VALUE);
        run.add(id, v);
        batch.put(id, v);
      }
      counting.set(true);
      boolean returned;
      try {
        run.ingestInto(index);
        returned = true;
      } catch (IOException crashed) {
        returned = false;
      }
      if (returned && fullIngestOps < 0) {
        fullIngestOps = seen.get();
      }
      fs.crash();
      try {
        index.close();
      } catch (IOException expected) {
        // The old process is dead.
      }
      try (LsmIndex reopened =
          LsmIndex.open(
              dir,
              IndexOptions.builder()
                  .fileSystem(fs)
                  .syncPolicy(SyncPolicy.NONE)
                  .memTableBytes(4 * 1024)
                  .build())) {
        int fromRun = 0;
        for (Map.Entry<Long, Long> e : batch.entrySet()) {
          long v = reopened.get(e.getKey());
          if (v == e.getValue()) {
            fromRun++;
          }
        }
        if (returned) {
          assertThat(fromRun)
              .as("cut %d, seed %d: ingest returned", cut, seed)
              .isEqualTo(batch.size());
        } else {
          assertThat(fromRun)
              .as("cut %d, seed %d: all or nothing", cut, seed)
              .isIn(0, batch.size());
        }
        if (fromRun == batch.size()) {
          acked.putAll(batch);
        }
        for (Map.Entry<Long, Long> e : acked.entrySet()) {
          assertThat(reopened.get(e.getKey()))
              .as("id %d, cut %d, seed %d", e.getKey(), cut, seed)
              .isEqualTo(e.getValue());
        }
      }
      assertThat(cut).as("ingest never completes, seed %d", seed).isLessThan(200);
    }
  }

  private static void check(
      LsmIndex index, TreeMap<Long, Long> model, long id, String when, long seed) throws Exception {
    Long expected = model.get(id);
    long actual = index.get(id);
    if (expected != null && expected == LsmIndex.DELETED) {
      assertThat(actual)
          .as("get(%d) %s, seed %d", id, when, seed)
          .isIn(LsmIndex.DELETED, LsmIndex.ABSENT);
    } else {
      assertThat(actual)
          .as("get(%d) %s, seed %d", id, when, seed)
          .isEqualTo(expected == null ? LsmIndex.ABSENT : expected);
    }
  }
}
