package io.docstore.index.engine;

import io.docstore.index.memtable.MemTable;
import io.docstore.index.table.Table;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An immutable view of the index's sources, newest first: the active memory table, frozen tables
 * waiting for their flush, and on-disk tables. Reference counted: the engine holds one reference
 * while the snapshot is current, each reader one while it reads. The snapshot holds a reference on
 * each of its tables, dropped when its own count reaches zero, so a table replaced by a compaction
 * stays open until no reader can still reach it.
 */
final class Snapshot {

  private static final Logger LOG = LoggerFactory.getLogger(Snapshot.class);

  final MemTable active;
  final MemTable[] frozen;
  final Table[] tables;
  private final AtomicInteger refs = new AtomicInteger(1);

  /** Takes a reference on every table; fails if one is already closed (an engine bug). */
  Snapshot(MemTable active, MemTable[] frozen, Table[] tables) {
    this.active = active;
    this.frozen = frozen;
    this.tables = tables;
    for (Table t : tables) {
      if (!t.retain()) {
        throw new IllegalStateException("table " + t.path() + " closed while still live");
      }
    }
  }

  boolean tryRetain() {
    while (true) {
      int r = refs.get();
      if (r <= 0) {
        return false;
      }
      if (refs.compareAndSet(r, r + 1)) {
        return true;
      }
    }
  }

  void release() {
    if (refs.decrementAndGet() == 0) {
      for (Table t : tables) {
        try {
          t.release();
        } catch (IOException e) {
          LOG.warn("could not close or delete {}: {}", t.path(), e.toString());
        }
      }
    }
  }
}
