package io.docstore.index.bulk;

import io.docstore.index.LsmIndex;
import java.io.IOException;
import java.util.Arrays;

/**
 * A run of (id, value) pairs gathered in memory for a bulk load, then sorted by id with a stable
 * least-significant-digit radix sort (8 bits a pass; passes whose byte is the same in every id are
 * skipped, so ids below 2^24 cost three passes) and deduplicated: of the pairs with the same id,
 * the one added last wins. Memory: 32 bytes per pair while sorting (two arrays of ids and values
 * and their scratch copies).
 *
 * <p>Not thread-safe. Values may be {@link LsmIndex#DELETED} (a tombstone) or {@code >= 0}.
 */
public final class SortedRun {

  private long[] ids;
  private long[] values;
  private int size;
  private boolean sorted = true;

  public SortedRun(int expected) {
    int n = Math.max(16, expected);
    ids = new long[n];
    values = new long[n];
  }

  public void add(long id, long value) {
    if (id < 0) {
      throw new IllegalArgumentException("id must be >= 0, got " + id);
    }
    if (value < 0 && value != LsmIndex.DELETED) {
      throw new IllegalArgumentException("value must be >= 0 or DELETED, got " + value);
    }
    if (size == ids.length) {
      int n = (int) Math.min(Integer.MAX_VALUE - 8, (long) size * 2);
      if (n == size) {
        throw new IllegalStateException("sorted run is full at " + size + " entries");
      }
      ids = Arrays.copyOf(ids, n);
      values = Arrays.copyOf(values, n);
    }
    if (size > 0 && id <= ids[size - 1]) {
      sorted = false;
    }
    ids[size] = id;
    values[size] = value;
    size++;
  }

  /** Pairs held (after {@link #sort}: distinct ids). */
  public int size() {
    return size;
  }

  /** Sorts by id and keeps, for each id, the pair added last. Idempotent. */
  public void sort() {
    if (!sorted) {
      radixSort();
      dedupKeepLast();
      sorted = true;
    }
  }

  /** Id at {@code i} (after {@link #sort}: ascending). */
  public long id(int i) {
    return ids[i];
  }

  public long value(int i) {
    return values[i];
  }

  /** Sorts and writes the run into {@code index} as one index file that wins over older entries. */
  public void ingestInto(LsmIndex index) throws IOException {
    sort();
    index.ingestSorted(ids, values, size);
  }

  private void radixSort() {
    long or = 0;
    long and = -1L;
    for (int i = 0; i < size; i++) {
      or |= ids[i];
      and &= ids[i];
    }
    long differing = or ^ and;
    long[] srcIds = ids;
    long[] srcValues = values;
    long[] dstIds = new long[size];
    long[] dstValues = new long[size];
    int[] counts = new int[257];
    for (int shift = 0; shift < 64; shift += 8) {
      if (((differing >>> shift) & 0xff) == 0) {
        continue;
      }
      Arrays.fill(counts, 0);
      for (int i = 0; i < size; i++) {
        counts[(int) ((srcIds[i] >>> shift) & 0xff) + 1]++;
      }
      for (int b = 0; b < 256; b++) {
        counts[b + 1] += counts[b];
      }
      for (int i = 0; i < size; i++) {
        int at = counts[(int) ((srcIds[i] >>> shift) & 0xff)]++;
        dstIds[at] = srcIds[i];
        dstValues[at] = srcValues[i];
      }
      long[] t = srcIds;
      srcIds = dstIds;
      dstIds = t;
      t = srcValues;
      srcValues = dstValues;
      dstValues = t;
    }
    ids = srcIds;
    values = srcValues;
  }

  /** Stable order: the last of equal ids was added last. */
  private void dedupKeepLast() {
    int out = 0;
    for (int i = 0; i < size; i++) {
      if (i + 1 < size && ids[i + 1] == ids[i]) {
        continue;
      }
      ids[out] = ids[i];
      values[out] = values[i];
      out++;
    }
    size = out;
  }
}
