package io.docstore.index.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Table tests of the article's compaction rule (docs/background.md), replaying its walk-through
 * (its Figures 6-12).
 */
class CompactionPickerTest {

  private static final long BATCH = 100_000;

  /**
   * Simulates n flushes of BATCH entries of distinct ids; returns total entry writes, leaves the
   * disk list in {@code disk}.
   */
  private static long simulate(int flushes, List<Long> disk) {
    long writes = 0;
    for (int f = 0; f < flushes; f++) {
      int k = CompactionPicker.absorbCount(BATCH, disk);
      long size = BATCH;
      for (int i = 0; i < k; i++) {
        size += disk.remove(0);
      }
      disk.add(0, size);
      writes += size;
    }
    return writes;
  }

  @Test
  void absorbsWhileNewIndexIsAtLeastAsLargeAsTheNewest() {
    assertThat(CompactionPicker.absorbCount(100, List.of())).isZero();
    assertThat(CompactionPicker.absorbCount(100, List.of(100L))).isEqualTo(1);
    assertThat(CompactionPicker.absorbCount(100, List.of(200L))).isZero();
    assertThat(CompactionPicker.absorbCount(100, List.of(100L, 200L))).isEqualTo(2);
    assertThat(CompactionPicker.absorbCount(100, List.of(100L, 300L))).isEqualTo(1);
    assertThat(CompactionPicker.absorbCount(99, List.of(100L))).isZero();
    assertThat(CompactionPicker.absorbCount(400, List.of(100L, 200L, 800L))).isEqualTo(2);
    assertThat(CompactionPicker.absorbCount(400, List.of(100L, 200L, 700L))).isEqualTo(3);
  }

  @Test
  void figures6to12FourFlushesGiveOneIndexAnd800kWrites() {
    List<Long> disk = new ArrayList<>();
    long[][] expectedDisk = {{100_000}, {200_000}, {100_000, 200_000}, {400_000}};
    long[] expectedWrites = {100_000, 300_000, 400_000, 800_000};
    long writes = 0;
    for (int f = 0; f < 4; f++) {
      writes += simulate(1, disk);
      assertThat(disk).as("after flush %d", f + 1).containsExactly(box(expectedDisk[f]));
      assertThat(writes).as("writes after flush %d", f + 1).isEqualTo(expectedWrites[f]);
    }
  }

  @Test
  void hundredFlushesGive37point6MillionWritesAndThreeIndexes() {
    List<Long> disk = new ArrayList<>();
    long writes = simulate(100, disk);
    assertThat(writes).isEqualTo(37_600_000L);
    assertThat(disk).containsExactly(400_000L, 3_200_000L, 6_400_000L);
  }

  /**
   * "Always merge" rewrites everything on every flush (f x BATCH entries at flush f): 505 million
   * writes by the 100th flush. The picker writes as much only on the flushes that absorb every
   * on-disk index, when f is a power of two and one index is left, and less on all others: 37.6
   * million in all.
   */
  @Test
  void alwaysMergeWrites505MillionAndThePickerMatchesItOnlyOnPowerOfTwoFlushes() {
    List<Long> disk = new ArrayList<>();
    long alwaysMerge = 0;
    long picked = 0;
    for (int f = 1; f <= 100; f++) {
      long everything = f * BATCH;
      alwaysMerge += everything;
      long written = simulate(1, disk);
      picked += written;
      if (Integer.bitCount(f) == 1) {
        assertThat(written).as("flush %d writes everything", f).isEqualTo(everything);
        assertThat(disk).as("after flush %d", f).containsExactly(everything);
      } else {
        assertThat(written).as("flush %d writes less than everything", f).isLessThan(everything);
      }
    }
    assertThat(alwaysMerge).isEqualTo(505_000_000L);
    assertThat(picked).isEqualTo(37_600_000L);
  }

  @Test
  void indexCountStaysLogarithmic() {
    List<Long> disk = new ArrayList<>();
    for (int f = 1; f <= 1024; f++) {
      simulate(1, disk);
      assertThat(disk.size())
          .as("indexes after %d flushes", f)
          .isLessThanOrEqualTo(Integer.bitCount(f));
    }
    assertThat(disk).containsExactly(102_400_000L);
  }

  private static Long[] box(long[] a) {
    Long[] b = new Long[a.length];
    for (int i = 0; i < a.length; i++) {
      b[i] = a[i];
    }
    return b;
  }
}
