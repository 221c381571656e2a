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
  void recoverySizingHoldsMoreThanTheBudget() {
    MemTable m = new MemTable(1024, 10_000, 1);
    for (long i = 0; i < 10_000; i++) {
      m.put(i, i);
    }
    assertThat(m.get(9_999)).isEqualTo(9_999);
    assertThat(m.isFull()).isTrue();
  }
}
