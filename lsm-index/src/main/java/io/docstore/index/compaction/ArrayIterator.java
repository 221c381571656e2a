package io.docstore.index.compaction;

import io.docstore.index.table.EntryIterator;
import java.util.Arrays;

/** Iterates sorted id/value arrays (a frozen memory table) from a starting id. */
public final class ArrayIterator implements EntryIterator {

  private final long[] ids;
  private final long[] values;
  private int i;

  public ArrayIterator(long[] ids, long[] values, long fromId) {
    this.ids = ids;
    this.values = values;
    int at = Arrays.binarySearch(ids, fromId);
    this.i = (at >= 0 ? at : -at - 1) - 1;
  }

  @Override
  public boolean next() {
    return ++i < ids.length;
  }

  @Override
  public long id() {
    return ids[i];
  }

  @Override
  public long value() {
    return values[i];
  }
}
