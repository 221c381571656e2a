package io.docstore.index.bulk;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.TestSupport;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class SortedRunTest {

  @Test
  void sortsAndKeepsTheLastValueOfEachId() {
    long seed = TestSupport.seed("SortedRunTest");
    SplittableRandom rnd = new SplittableRandom(seed);
    for (int round = 0; round < 50; round++) {
      int n = rnd.nextInt(5_000);
      long range = round % 3 == 0 ? 100 : round % 3 == 1 ? 1L << 40 : Long.MAX_VALUE;
      SortedRun run = new SortedRun(rnd.nextInt(100));
      TreeMap<Long, Long> model = new TreeMap<>();
      for (int i = 0; i < n; i++) {
        long id = rnd.nextLong(range);
        long v = rnd.nextLong(Long.MAX_VALUE);
        run.add(id, v);
        model.put(id, v);
      }
      run.sort();
      assertThat(run.size()).as("seed %d round %d", seed, round).isEqualTo(model.size());
      int i = 0;
      for (Map.Entry<Long, Long> e : model.entrySet()) {
        assertThat(run.id(i)).as("seed %d round %d at %d", seed, round, i).isEqualTo(e.getKey());
        assertThat(run.value(i))
            .as("seed %d round %d at %d", seed, round, i)
            .isEqualTo(e.getValue());
        i++;
      }
    }
  }
}
