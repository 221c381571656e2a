package io.docstore.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.SyncPolicy;
import io.docstore.io.TestSupport;
import java.nio.file.Path;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Interleaves puts, deletes, batches, gets, scans, flushes (which compact per the picker) and
 * reopens against a TreeMap model. Small memory tables make flushes and merges frequent.
 */
class LsmIndexRandomizedTest {

  @TempDir Path dir;

  @Test
  @Timeout(value = 15, unit = TimeUnit.MINUTES)
  void matchesTreeMapModel() throws Exception {
    long seed = TestSupport.seed("LsmIndexRandomizedTest");
    SplittableRandom rnd = new SplittableRandom(seed);
    int ops = 1_000_000 * TestSupport.scale();
    IndexOptions opts =
        IndexOptions.builder()
            .syncPolicy(SyncPolicy.NONE)
            .memTableBytes(128 * 1024)
            .bloomMemoryBytes(256 * 1024)
            .bloomRebalanceMillis(20)
            // Off, or a page cache far smaller than the tables, so fills, hits and evictions all
            // happen.
            .pageCacheBytes(rnd.nextBoolean() ? 0 : (1 + rnd.nextInt(64)) * 4096L)
            .build();
    System.out.println("LsmIndexRandomizedTest: page cache " + opts.pageCacheBytes() + " bytes");
    TreeMap<Long, Long> model = new TreeMap<>();
    LsmIndex index = LsmIndex.open(dir, opts);
    long idRange = 20_000;
    try {
      for (int op = 0; op < ops; op++) {
        int r = rnd.nextInt(1000);
        if (r == 998 && rnd.nextInt(4) != 0) {
          r = 0;
        }
        if (r < 450) {
          long id = rnd.nextLong(idRange);
          long v = rnd.nextLong(Long.MAX_VALUE);
          index.put(id, v);
          model.put(id, v);
        } else if (r < 550) {
          long id = rnd.nextLong(idRange);
          index.delete(id);
          model.put(id, LsmIndex.DELETED);
        } else if (r < 560) {
          int n = 1 + rnd.nextInt(300);
          long[] ids = new long[n + 3];
          long[] vals = new long[n + 3];
          for (int i = 0; i < n; i++) {
            ids[i] = rnd.nextLong(idRange);
            vals[i] = rnd.nextInt(10) == 0 ? LsmIndex.DELETED : rnd.nextLong(Long.MAX_VALUE);
          }
          index.putAll(ids, vals, n);
          for (int i = 0; i < n; i++) {
            model.put(ids[i], vals[i]);
          }
        } else if (r < 998) {
          long id = rnd.nextLong(idRange + 100);
          checkGet(index, model, id, "op " + op, seed);
        } else if (r < 999) {
          int kind = rnd.nextInt(10);
          if (kind == 0) {
            index.close();
            index = LsmIndex.open(dir, opts);
          } else if (kind < 4) {
            index.flush();
          } else {
            checkScan(index, model, rnd.nextLong(idRange), 5_000, op, seed);
          }
        } else {
          idRange = Math.min(1_000_000, idRange + rnd.nextInt(5_000));
        }
      }
      checkScan(index, model, 0, Integer.MAX_VALUE, ops, seed);
      index.close();
      index = LsmIndex.open(dir, opts);
      for (long id : model.keySet()) {
        checkGet(index, model, id, "after final reopen", seed);
      }
      assertThat(index.stats().flushes() + index.indexSizes().size()).isPositive();
    } finally {
      index.close();
    }
  }

  /**
   * A deleted id reads DELETED until its tombstone is dropped by a merge into the oldest index,
   * then ABSENT.
   */
  private static void checkGet(
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

  /**
   * Compares the first {@code limit} live entries from {@code from} (all of them if the limit is
   * not reached).
   */
  private static void checkScan(
      LsmIndex index, TreeMap<Long, Long> model, long from, int limit, int op, long seed)
      throws Exception {
    try (IndexCursor c = index.scan(from)) {
      int seen = 0;
      for (Map.Entry<Long, Long> e : model.tailMap(from, true).entrySet()) {
        if (e.getValue() == LsmIndex.DELETED) {
          continue;
        }
        if (seen++ == limit) {
          return;
        }
        assertThat(c.next())
            .as("scan from %d ends early before %d (op %d, seed %d)", from, e.getKey(), op, seed)
            .isTrue();
        assertThat(c.id()).as("scan id (op %d, seed %d)", op, seed).isEqualTo(e.getKey());
        assertThat(c.value())
            .as("scan value of %d (op %d, seed %d)", e.getKey(), op, seed)
            .isEqualTo(e.getValue());
      }
      assertThat(c.next()).as("scan has extra entries (op %d, seed %d)", op, seed).isFalse();
    }
  }
}
