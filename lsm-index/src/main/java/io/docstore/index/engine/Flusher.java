package io.docstore.index.engine;

import io.docstore.index.bloom.BloomBuilder;
import io.docstore.index.bloom.BloomFilter;
import io.docstore.index.compaction.ArrayIterator;
import io.docstore.index.compaction.CompactionPicker;
import io.docstore.index.compaction.MergingIterator;
import io.docstore.index.file.FileNames;
import io.docstore.index.manifest.Manifest;
import io.docstore.index.memtable.MemTable;
import io.docstore.index.table.EntryIterator;
import io.docstore.index.table.Table;
import io.docstore.index.table.TableFormat;
import io.docstore.index.table.TableWriter;
import io.docstore.io.FileSystem;
import io.docstore.io.KillPoints;
import io.docstore.io.NoSpaceException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the oldest frozen memory table to disk, merged in one streaming pass with the newest
 * on-disk tables the {@link CompactionPicker} says it absorbs, then publishes the manifest and
 * installs the result. Runs only on the engine's single background thread, so it is the only code
 * that changes the table list. Ordering (proof sketch in docs/design/compaction.md): table and
 * bloom files forced and directory synced, then the manifest published (the commit point), then the
 * new snapshot installed, then obsolete WALs deleted and replaced tables marked for deletion once
 * their last reader is done.
 *
 * <p>Disk space is checked first: if the merge does not fit, the table is flushed alone; if even
 * that does not fit, the flush fails cleanly (nothing installed, the frozen table stays readable in
 * memory and in its WAL) and is retried a second later.
 */
final class Flusher {

  private static final Logger LOG = LoggerFactory.getLogger(Flusher.class);

  /** Headroom over the estimated output size (bloom file, page padding, file system slack). */
  private static final double SPACE_HEADROOM = 1.25;

  /** Entries written between two calls to the pacer (64 KiB of table). */
  private static final int PACE_ENTRIES = 4096;

  /** A full disk is logged once, then at most this often while it lasts (not an ERROR a second). */
  private static final long NO_SPACE_LOG_NANOS = 60_000_000_000L;

  private final IndexEngine engine;

  /** Background thread only: consecutive failed attempts and when a full disk was last logged. */
  private int failedAttempts;

  private long noSpaceLoggedAt;

  Flusher(IndexEngine engine) {
    this.engine = engine;
  }

  void flushOne() {
    if (engine.closed) {
      return;
    }
    try {
      if (flush()) {
        engine.backgroundFailure = null;
        if (failedAttempts > 0) {
          LOG.info(
              "index flush in {} succeeded again after {} failed attempts",
              engine.dir,
              failedAttempts);
          failedAttempts = 0;
        }
      }
    } catch (IOException | RuntimeException e) {
      engine.counters.backgroundFailures.incrementAndGet();
      failedAttempts++;
      if (NoSpaceException.isNoSpace(e)) {
        long now = System.nanoTime();
        if (failedAttempts == 1 || now - noSpaceLoggedAt >= NO_SPACE_LOG_NANOS) {
          noSpaceLoggedAt = now;
          LOG.warn(
              "index flush in {} failed for lack of disk space ({} attempts so far); the frozen table stays in "
                  + "memory and its WAL; retrying every second, logged at most once a minute: {}",
              engine.dir,
              failedAttempts,
              e.toString());
        }
      } else {
        LOG.error(
            "index flush failed in {}; the frozen table stays in memory and its WAL; retrying in 1 s",
            engine.dir,
            e);
      }
      engine.backgroundFailure = e instanceof IOException io ? io : new IOException(e);
      synchronized (engine.stateLock) {
        engine.stateLock.notifyAll();
      }
      engine.retryLater();
    } finally {
      engine.counters.backgroundWork.set(IndexCounters.IDLE); // also after a failed or empty flush
    }
  }

  /** Flushes the oldest frozen table; false if there was none (a retry already did it). */
  private boolean flush() throws IOException {
    Snapshot s;
    synchronized (engine.stateLock) {
      s = engine.currentLocked();
      if (s.frozen.length == 0) {
        return false;
      }
      s.tryRetain();
    }
    try {
      return flush(s, s.frozen[s.frozen.length - 1]);
    } finally {
      s.release();
    }
  }

  private boolean flush(Snapshot s, MemTable m) throws IOException {
    FileSystem fs = engine.options.fileSystem();
    MemTable.Sorted sorted = m.sorted();
    List<Long> sizes = new ArrayList<>();
    for (Table t : s.tables) {
      sizes.add(t.entryCount());
    }
    int k = CompactionPicker.absorbCount(sorted.ids().length, sizes);
    long free = fs.usableSpace(engine.dir);
    if (k > 0 && free < estimate(sorted.ids().length, s.tables, k)) {
      LOG.warn(
          "not enough disk space in {} to merge {} indexes ({} bytes free); flushing the memory table alone",
          engine.dir,
          k,
          free);
      k = 0;
    }
    if (free < estimate(sorted.ids().length, s.tables, 0)) {
      throw new NoSpaceException(
          "No space left on device: not enough disk space in "
              + engine.dir
              + " to flush "
              + sorted.ids().length
              + " entries ("
              + free
              + " bytes free)");
    }
    engine.counters.backgroundWork.set(k > 0 ? IndexCounters.COMPACTING : IndexCounters.FLUSHING);
    boolean oldest = k == s.tables.length;
    long expected = sorted.ids().length;
    List<EntryIterator> sources = new ArrayList<>();
    sources.add(new ArrayIterator(sorted.ids(), sorted.values(), 0));
    for (int i = 0; i < k; i++) {
      sources.add(s.tables[i].iterator(0));
      expected += s.tables[i].entryCount();
    }
    long number = engine.allocateFileNumber();
    Path tablePath = FileNames.path(engine.dir, FileNames.Kind.TABLE, number);
    Path bloomPath = FileNames.path(engine.dir, FileNames.Kind.BLOOM, number);
    KillPoints.reach("index.flush.before-write");
    if (k > 0) {
      KillPoints.reach("index.compaction.before-write");
    }
    Table created = null;
    TableWriter.Info info = null;
    BloomBuilder bloom = new BloomBuilder(expected, engine.options.bloomFalsePositiveRate());
    TableWriter w = new TableWriter(fs, tablePath, bloom);
    try (MergingIterator merged = new MergingIterator(sources, oldest)) {
      long n = 0;
      while (merged.next()) {
        w.add(merged.id(), merged.value());
        if (++n == expected / 2 && k > 0) {
          KillPoints.reach("index.compaction.mid-write");
        }
        if (n % PACE_ENTRIES == 0) {
          engine.pacer.written(PACE_ENTRIES * TableFormat.ENTRY_SIZE);
        }
      }
      if (w.entries() > 0) {
        info = w.finish();
        created = openWritten(engine, info, bloom, tablePath, bloomPath, number, k > 0);
      } else {
        w.abort();
      }
    } catch (IOException | RuntimeException e) {
      w.abort();
      fs.delete(bloomPath);
      throw e;
    }
    KillPoints.reach("index.flush.after-write");
    try {
      install(s, m, k, created);
    } catch (IOException | RuntimeException e) {
      if (created != null) {
        created.markObsolete();
        created.release();
      }
      throw e;
    }
    if (k > 0) {
      KillPoints.reach("index.compaction.after-install");
    }
    LOG.debug(
        "flushed {} entries from memory{} into {} ({} entries)",
        sorted.ids().length,
        k > 0 ? " merged with " + k + " indexes" : "",
        tablePath.getFileName(),
        info == null ? 0 : info.entries());
    return true;
  }

  /** Upper estimate of the table and bloom bytes a flush absorbing {@code k} tables writes. */
  private static long estimate(long memEntries, Table[] tables, int k) {
    long entries = memEntries;
    for (int i = 0; i < k; i++) {
      entries += tables[i].entryCount();
    }
    // 16 bytes per entry plus 12 per 256-entry page of index block, about 1.2-2 bytes of bloom per
    // entry, and the header pages and trailers of both files.
    long bytes = entries * (TableFormat.ENTRY_SIZE + 2) + 6L * TableFormat.PAGE_SIZE;
    return (long) (bytes * SPACE_HEADROOM);
  }

  private void install(Snapshot s, MemTable m, int k, Table created) throws IOException {
    List<Table> next = new ArrayList<>();
    if (created != null) {
      next.add(created);
    }
    next.addAll(Arrays.asList(s.tables).subList(k, s.tables.length));
    List<Manifest.TableRef> refs = new ArrayList<>();
    for (Table t : next) {
      refs.add(new Manifest.TableRef(t.number(), t.entryCount()));
    }
    long minLiveWal = m.walNumber() + 1;
    long nextFile;
    synchronized (engine.stateLock) {
      nextFile = engine.nextFileNumber;
    }
    KillPoints.reach("index.flush.before-manifest");
    new Manifest(nextFile, minLiveWal, refs).publish(engine.options.fileSystem(), engine.dir);
    KillPoints.reach("index.flush.after-manifest");
    // Counted at the commit point, before the install wakes anyone waiting in flush().
    engine.counters.flushes.incrementAndGet();
    if (k > 0) {
      engine.counters.compactions.incrementAndGet();
    }
    // The writing is over; said before the install wakes anyone waiting in flush().
    engine.counters.backgroundWork.set(IndexCounters.IDLE);
    List<Long> obsoleteWals;
    synchronized (engine.stateLock) {
      Snapshot cur = engine.currentLocked();
      MemTable[] frozen = Arrays.copyOf(cur.frozen, cur.frozen.length - 1);
      engine.installLocked(new Snapshot(cur.active, frozen, next.toArray(new Table[0])));
      obsoleteWals = new ArrayList<>(engine.walFiles.headSet(minLiveWal));
      engine.walFiles.removeAll(obsoleteWals);
    }
    if (created != null) {
      created.release();
    }
    for (int i = 0; i < k; i++) {
      s.tables[i].markObsolete();
    }
    for (long w : obsoleteWals) {
      engine.options.fileSystem().delete(FileNames.path(engine.dir, FileNames.Kind.WAL, w));
    }
  }

  /**
   * The last steps of writing an index file, shared by flushes, compactions and bulk ingests: the
   * bloom file written and forced, the directory synced, the bytes counted, the table opened with
   * its filter. {@code w} was finished into {@code info} by the caller.
   */
  static Table openWritten(
      IndexEngine engine,
      TableWriter.Info info,
      BloomBuilder bloom,
      Path tablePath,
      Path bloomPath,
      long number,
      boolean compaction)
      throws IOException {
    FileSystem fs = engine.options.fileSystem();
    long bloomBytes = bloom.writeTo(fs, bloomPath);
    fs.syncDirectory(engine.dir);
    engine.counters.tableEntriesWritten.addAndGet(info.entries());
    engine.counters.tableBytesWritten.addAndGet(info.bytes() + bloomBytes);
    if (compaction) {
      engine.counters.compactionEntriesWritten.addAndGet(info.entries());
      engine.counters.compactionBytesWritten.addAndGet(info.bytes() + bloomBytes);
    }
    BloomFilter filter = BloomFilter.open(fs, bloomPath, engine.pager);
    try {
      return Table.open(fs, tablePath, number, filter, engine.options.mappedReads());
    } catch (IOException | RuntimeException e) {
      filter.close();
      throw e;
    }
  }
}
