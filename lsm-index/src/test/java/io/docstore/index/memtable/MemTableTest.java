package io.docstore.index.memtable;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.TestSupport;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class MemTableTest {

  @Test
  void matchesHashMapAndSortsOnFreeze() {
    long seed = TestSupport.seed("MemTableTest");
    SplittableRandom rnd = new SplittableRandom(seed);
    MemTable m = new MemTable(1 << 16, 0, 7);
    Map<Long, Long> model = new HashMap<>();
    while (!m.isFull()) {
      long id = rnd.nextInt(10) == 0 ? Long.MAX_VALUE - rnd.nextInt(3) : rnd.nextLong(5000);
      long v = rnd.nextInt(5) == 0 ? -2L : rnd.nextLong(Long.MAX_VALUE);
      m.put(id, v);
      model.put(id, v);
    }
    assertThat(m.size()).isEqualTo(model.size()).isEqualTo(m.maxEntries());
    for (Map.Entry<Long, Long> e : model.entrySet()) {
      assertThat(m.get(e.getKey())).isEqualTo(e.getValue());
    }
    assertThat(m.get(999_999)).isEqualTo(MemTable.MISSING);
    m.markFrozen();
    MemTable.Sorted s = m.sorted();
    assertThat(m.sorted()).isSameAs(s);
    assertThat(s.ids()).hasSize(model.size()).isSorted();
    for (int i = 0; i < s.ids().length; i++) {
      assertThat(s.values()[i]).isEqualTo(model.get(s.ids()[i]));
    }
    assertThat(m.walNumber()).isEqualTo(7);
  }

  @Test
  void putAllOfBatchesWithRepeatsMatchesPutOneByOne() {
    long seed = TestSupport.seed("MemTableTest.putAll");
    SplittableRandom rnd = new SplittableRandom(seed);
    MemTable batched = new MemTable(1 << 18, 0, 1);
    MemTable single = new MemTable(1 << 18, 0, 1);
    Map<Long, Long> model = new HashMap<>();
    while (batched.hasRoomFor(200)) {
      int n = 1 + rnd.nextInt(150);
      int from = rnd.nextInt(5);
      long[] ids = new long[from + n];
      long[] values = new long[from + n];
      for (int i = from; i < from + n; i++) {
        // Repeats inside a batch (the last one wins) and across batches.
        ids[i] =
            rnd.nextInt(4) == 0 && i > from
                ? ids[from + rnd.nextInt(i - from)]
                : rnd.nextLong(20_000);
        values[i] = rnd.nextInt(5) == 0 ? -2L : rnd.nextLong(Long.MAX_VALUE);
        single.put(ids[i], values[i]);
        model.put(ids[i], values[i]);
      }
      batched.putAll(ids, values, from, n);
    }
    assertThat(batched.size()).isEqualTo(single.size()).isEqualTo(model.size());
    for (Map.Entry<Long, Long> e : model.entrySet()) {
      assertThat(batched.get(e.getKey())).as("id %d", e.getKey()).isEqualTo(e.getValue());
    }
    batched.markFrozen();
    single.markFrozen();
    assertThat(batched.sorted().ids()).isEqualTo(single.sorted().ids());
    assertThat(batched.sorted().values()).isEqualTo(single.sorted().values());
  }

  @Test
  void startsSmallAndGrowsToItsBudgetWhileReadersKeepFindingEverything() throws Exception {
    long budget = 64L << 20;
    MemTable m = new MemTable(budget, 0, 1);
    assertThat(m.bytes()).as("an empty table takes almost nothing").isLessThanOrEqualTo(4096);
    int n = m.maxEntries();
    java.util.concurrent.atomic.AtomicLong written = new java.util.concurrent.atomic.AtomicLong();
    java.util.concurrent.atomic.AtomicReference<String> failure =
        new java.util.concurrent.atomic.AtomicReference<>();
    Thread reader =
        new Thread(
            () -> {
              java.util.Random rnd = new java.util.Random(3);
              while (written.get() < n && failure.get() == null) {
                long w = written.get();
                if (w == 0) {
                  continue;
                }
                long id = (rnd.nextLong() & Long.MAX_VALUE) % w;
                long v = m.get(id * 7);
                if (v != id) {
                  failure.set("id " + id * 7 + " written before the read was " + v);
                }
              }
            });
    reader.start();
    long[] ids = new long[100];
    long[] values = new long[100];
    long previousBytes = m.bytes();
    int grew = 0;
    for (long id = 0; id < n; id += ids.length) {
      int k = (int) Math.min(ids.length, n - id);
      for (int j = 0; j < k; j++) {
        ids[j] = (id + j) * 7;
        values[j] = id + j;
      }
      m.putAll(ids, values, 0, k);
      written.set(id + k);
      if (m.bytes() > previousBytes) {
        grew++;
        previousBytes = m.bytes();
      }
    }
    reader.join();
    assertThat(failure.get()).isNull();
    assertThat(grew).isGreaterThan(10);
    assertThat(m.bytes()).isLessThanOrEqualTo(budget);
    assertThat(m.isFull()).isTrue();
    for (long id = 0; id < n; id += 9973) {
      assertThat(m.get(id * 7)).isEqualTo(id);
    }
    assertThat(m.get(5)).isEqualTo(MemTable.MISSING);
  }

  @Test
  void recoverySizingHoldsMoreThanTheBudget() {
    MemTable m = new MemTable(1024, 10_000, 1);
    for (long i = 0; i < 10_000; i++) {
      m.put(i, i);
    }
    assertThat(m.get(9_999)).isEqualTo(9_999);
    assertThat(m.isFull()).isTrue();
  }
}
