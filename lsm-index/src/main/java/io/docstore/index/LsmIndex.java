package io.docstore.index;

import io.docstore.index.engine.IndexEngine;
import io.docstore.index.table.EntryIterator;
import io.docstore.io.DirectoryLock;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * A log-structured index from 64-bit ids to opaque 64-bit values, following Indeed's Docstore v2:
 * writes go to a write-ahead log and an in-memory table; full tables are written as immutable
 * sorted on-disk indexes by a background thread, which merges them size-tiered (a new index absorbs
 * the newest on-disk indexes while it is at least as large); lookups search newest first, skipping
 * indexes whose paged bloom filter says "no". Deletes are tombstones.
 *
 * <p>Durability: {@code always} (the default): {@link #put}, {@link #delete} and {@link #putAll}
 * return after a group-committed WAL fsync. {@code interval:N}: they return at once and the WAL is
 * fsynced within N ms. {@code none}: the OS decides (and up to 64 KiB of WAL may still be in the
 * process). {@link #sync()} makes everything written so far durable under any policy; {@link
 * #flushToOs()} only hands it to the OS, so that it survives a crash of the process.
 *
 * <p>Thread-safety: one writer thread (put/delete/putAll/sync), any number of concurrent readers
 * (get/scan/stats). Readers never block on flush or compaction.
 */
public final class LsmIndex implements java.io.Closeable {

  /** {@link #get}: never written, or dropped. */
  public static final long ABSENT = -1L;

  /** {@link #get}: the newest entry for the id is a tombstone. */
  public static final long DELETED = -2L;

  private final IndexEngine engine;

  /** One open index per directory: held from open to close. */
  private final DirectoryLock lock;

  private LsmIndex(IndexEngine engine, DirectoryLock lock) {
    this.lock = lock;
    this.engine = engine;
  }

  /** Opens (creating the directory if needed) and recovers an index. */
  public static LsmIndex open(Path dir, IndexOptions options) throws IOException {
    options.fileSystem().createDirectories(dir);
    DirectoryLock lock = DirectoryLock.acquire(dir);
    try {
      return new LsmIndex(IndexEngine.open(dir, options), lock);
    } catch (IOException | RuntimeException e) {
      lock.close();
      throw e;
    }
  }

  /**
   * Opens an existing index for reading without changing its directory (no WAL started, no torn
   * tail cut, no file deleted, no flush or compaction). Writes then stay in memory and are gone at
   * close: an offline reader uses them to index what a checkpoint does not cover. Takes the
   * directory's lock like {@link #open}.
   */
  public static LsmIndex openReadOnly(Path dir, IndexOptions options) throws IOException {
    if (!options.fileSystem().exists(dir)) {
      throw new java.io.FileNotFoundException("no index directory " + dir);
    }
    DirectoryLock lock = DirectoryLock.acquire(dir);
    try {
      return new LsmIndex(IndexEngine.openReadOnly(dir, options), lock);
    } catch (IOException | RuntimeException e) {
      lock.close();
      throw e;
    }
  }

  private static void checkId(long id) {
    if (id < 0) {
      throw new IllegalArgumentException("id must be >= 0, got " + id);
    }
  }

  /** Maps {@code id} to {@code value}; durable per the sync policy when it returns. */
  public void put(long id, long value) throws IOException {
    checkId(id);
    if (value < 0) {
      throw new IllegalArgumentException("value must be >= 0, got " + value);
    }
    engine.put(id, value);
  }

  /** Writes a tombstone for {@code id}. */
  public void delete(long id) throws IOException {
    checkId(id);
    engine.put(id, DELETED);
  }

  /**
   * Writes {@code count} entries as one batch with one group commit; a value of {@link #DELETED} is
   * a tombstone. Validates the whole batch before writing any of it.
   */
  public void putAll(long[] ids, long[] values, int count) throws IOException {
    checkBatch(ids, values, count);
    if (count > 0) {
      engine.putAll(ids, values, count);
    }
  }

  /**
   * Bulk load: writes {@code count} entries with strictly ascending ids (a value of {@link
   * #DELETED} is a tombstone) as one new index file, off the WAL and memory-table path, and
   * installs it atomically through the manifest as the newest index: afterwards it wins over every
   * entry written before the call, and every later write wins over it. Durable when it returns,
   * whatever the sync policy (files forced, manifest published); a crash before that leaves the
   * index as it was. Flushes the memory tables first and blocks writers while it installs. {@link
   * io.docstore.index.bulk.SortedRun} sorts and deduplicates unsorted input.
   */
  public void ingestSorted(long[] ids, long[] values, int count) throws IOException {
    checkBatch(ids, values, count);
    if (count > 0) {
      engine.ingestSorted(ids, values, count);
    }
  }

  private static void checkBatch(long[] ids, long[] values, int count) {
    if (count < 0 || count > ids.length || count > values.length) {
      throw new IllegalArgumentException(
          "count " + count + " out of range for arrays of " + ids.length + " and " + values.length);
    }
    for (int i = 0; i < count; i++) {
      checkId(ids[i]);
      if (values[i] < 0 && values[i] != DELETED) {
        throw new IllegalArgumentException(
            "value must be >= 0 or DELETED, got " + values[i] + " at " + i);
      }
    }
  }

  /** The value, {@link #ABSENT} or {@link #DELETED}. Never blocks on flush or compaction. */
  public long get(long id) throws IOException {
    checkId(id);
    return engine.get(id);
  }

  /**
   * Whether a {@link #get} now most likely does not wait for the disk: lookups read table pages
   * through mappings and the last timed ones found their pages in memory. A guess for callers that
   * would rather not block (a network thread); false whenever it cannot tell.
   */
  public boolean lookupsWarm() {
    return engine.lookupsWarm();
  }

  /** Live entries with id {@code >= fromId} in ascending order, over a consistent snapshot. */
  public IndexCursor scan(long fromId) throws IOException {
    EntryIterator it = engine.scan(Math.max(0, fromId));
    return new IndexCursor() {
      @Override
      public boolean next() throws IOException {
        return it.next();
      }

      @Override
      public long id() {
        return it.id();
      }

      @Override
      public long value() {
        return it.value();
      }

      @Override
      public void close() throws IOException {
        it.close();
      }
    };
  }

  /** Fsyncs the WAL now, whatever the policy. */
  public void sync() throws IOException {
    engine.sync();
  }

  /**
   * Hands every record written so far to the operating system, without fsync: afterwards a crash of
   * this process (not of the machine) loses none of it, whatever the policy. Under {@code none} and
   * {@code interval:N} up to 64 KiB of WAL records otherwise stay in the process until the buffer
   * fills, the interval's fsync drains it or the index closes. One {@code write} of the buffered
   * records, nothing when there are none; for callers that promise "survives a process crash" at
   * their own batch boundaries without paying an fsync per batch.
   */
  public void flushToOs() throws IOException {
    engine.flushToOs();
  }

  /**
   * Freezes the memory table and waits until every frozen table is written to disk (with whatever
   * compaction the picker chooses). For tools, tests and orderly shutdown; never needed for
   * durability.
   */
  public void flush() throws IOException {
    engine.flush();
  }

  /** Entry counts of the on-disk indexes, newest first. */
  public List<Long> indexSizes() throws IOException {
    return engine.tableSizes();
  }

  /** Runs one round of the bloom pager's usefulness ranking now (it also runs periodically). */
  public void rebalanceBloom() {
    engine.pager().rebalance();
  }

  /** The metric hooks: a snapshot of plain counters and values. */
  public IndexStats stats() {
    return IndexStats.of(engine);
  }

  /** Syncs the WAL and closes; readers still running fail with an IOException. */
  @Override
  public void close() throws IOException {
    try {
      engine.close();
    } finally {
      lock.close();
    }
  }
}
