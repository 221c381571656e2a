package io.docstore.index.compaction;

import java.util.List;

/**
 * The Indeed size-tiered rule (the article's compaction heuristic, its Figure 5;
 * docs/background.md), as a pure function of sizes:
 *
 * <pre>
 * while newIndex.size &gt;= diskIndexes.first.size: newIndex = merge(newIndex, diskIndexes.removeFirst())
 * </pre>
 *
 * where {@code diskIndexes} is ordered newest first. Each flush therefore writes the frozen memory
 * table merged with the newest {@link #absorbCount} on-disk indexes as one new index, in one pass.
 * Sizes are entry counts. Total entry writes grow as O(n log n) and the number of indexes stays
 * O(log n) (see docs/design/compaction.md for the walk-through and the article's misprint).
 */
public final class CompactionPicker {

  private CompactionPicker() {}

  /**
   * How many of the newest on-disk indexes a new index of {@code newSize} entries absorbs.
   *
   * @param diskSizes entry counts of the on-disk indexes, newest first
   */
  public static int absorbCount(long newSize, List<Long> diskSizes) {
    long size = newSize;
    int k = 0;
    while (k < diskSizes.size() && size >= diskSizes.get(k)) {
      size += diskSizes.get(k);
      k++;
    }
    return k;
  }
}
