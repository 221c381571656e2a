package io.docstore.index.compaction;

import io.docstore.index.table.EntryIterator;
import java.io.IOException;
import java.util.List;

/**
 * Merges sorted sources, newest first in the list: for an id present in several sources the newest
 * wins and the others are skipped. Streams: memory is one head entry per source. The source count
 * is small (O(log n) indexes), so the minimum is found by a linear scan.
 *
 * <p>With {@code dropTombstones} (only when the output becomes the oldest index, so no older entry
 * can resurface) tombstones are left out; otherwise they are kept.
 */
public final class MergingIterator implements EntryIterator {

  private final EntryIterator[] sources;
  private final boolean[] live;
  private final boolean dropTombstones;
  private long id;
  private long value;

  public MergingIterator(List<EntryIterator> newestFirst, boolean dropTombstones)
      throws IOException {
    this.sources = newestFirst.toArray(new EntryIterator[0]);
    this.live = new boolean[sources.length];
    this.dropTombstones = dropTombstones;
    for (int i = 0; i < sources.length; i++) {
      live[i] = sources[i].next();
    }
  }

  @Override
  public boolean next() throws IOException {
    while (true) {
      int best = -1;
      long min = Long.MAX_VALUE;
      for (int i = 0; i < sources.length; i++) {
        if (live[i] && (best < 0 || sources[i].id() < min)) {
          best = i;
          min = sources[i].id();
        }
      }
      if (best < 0) {
        return false;
      }
      long v = sources[best].value();
      for (int i = 0; i < sources.length; i++) {
        if (live[i] && sources[i].id() == min) {
          live[i] = sources[i].next();
        }
      }
      if (dropTombstones && v == -2L) {
        continue;
      }
      id = min;
      value = v;
      return true;
    }
  }

  @Override
  public long id() {
    return id;
  }

  @Override
  public long value() {
    return value;
  }

  @Override
  public void close() throws IOException {
    IOException first = null;
    for (EntryIterator s : sources) {
      try {
        s.close();
      } catch (IOException e) {
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
