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
        ids[i] = rnd.nextInt(4) == 0 && i > from ? ids[from + rnd.nextInt(i - from)] : rnd.nextLong(20_000);
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
  void recoverySizingHoldsMoreThanTheBudget() {
    MemTable m = new MemTable(1024, 10_000, 1);
    for (long i = 0; i < 10_000; i++) {
      m.put(i, i);
    }
    assertThat(m.get(9_999)).isEqualTo(9_999);
    assertThat(m.isFull()).isTrue();
  }
}
