package io.docstore.index.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.index.table.EntryIterator;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MergingIteratorTest {

  private static List<long[]> drain(EntryIterator it) throws Exception {
    List<long[]> out = new ArrayList<>();
    while (it.next()) {
      out.add(new long[] {it.id(), it.value()});
    }
    return out;
  }

  @Test
  void newestWinsAndTombstonesDroppedOnlyWhenAsked() throws Exception {
    long[] newIds = {1, 3, 5};
    long[] newVals = {10, -2, 50};
    long[] oldIds = {1, 2, 3, 6};
    long[] oldVals = {1, 2, 3, 6};
    List<long[]> keep =
        drain(
            new MergingIterator(
                List.of(
                    new ArrayIterator(newIds, newVals, 0), new ArrayIterator(oldIds, oldVals, 0)),
                false));
    assertThat(keep)
        .containsExactly(
            new long[] {1, 10},
            new long[] {2, 2},
            new long[] {3, -2},
            new long[] {5, 50},
            new long[] {6, 6});
    List<long[]> drop =
        drain(
            new MergingIterator(
                List.of(
                    new ArrayIterator(newIds, newVals, 2), new ArrayIterator(oldIds, oldVals, 2)),
                true));
    assertThat(drop).containsExactly(new long[] {2, 2}, new long[] {5, 50}, new long[] {6, 6});
  }
}
