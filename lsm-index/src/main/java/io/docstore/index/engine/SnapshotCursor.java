package io.docstore.index.engine;

import io.docstore.index.table.EntryIterator;
import java.io.IOException;

/**
 * A scan over a retained {@link Snapshot}: live entries from the merged sources. Holding the
 * snapshot keeps its tables open until {@link #close}. Single-threaded; close is idempotent.
 */
final class SnapshotCursor implements EntryIterator {

  private final EntryIterator merged;
  private final Snapshot snapshot;
  private boolean released;

  SnapshotCursor(EntryIterator merged, Snapshot snapshot) {
    this.merged = merged;
    this.snapshot = snapshot;
  }

  @Override
  public boolean next() throws IOException {
    if (released) {
      throw new IOException("cursor is closed");
    }
    return merged.next();
  }

  @Override
  public long id() {
    return merged.id();
  }

  @Override
  public long value() {
    return merged.value();
  }

  @Override
  public void close() {
    if (!released) {
      released = true;
      snapshot.release();
    }
  }
}
