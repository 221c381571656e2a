package io.docstore.index.engine;

import io.docstore.index.IndexOptions;
import io.docstore.index.bloom.BloomFilter;
import io.docstore.index.bloom.BloomPager;
import io.docstore.index.compaction.ArrayIterator;
import io.docstore.index.compaction.MergingIterator;
import io.docstore.index.file.FileNames;
import io.docstore.index.memtable.MemTable;
import io.docstore.index.table.EntryIterator;
import io.docstore.index.table.Table;
import io.docstore.index.wal.WalWriter;
import io.docstore.io.ColdReads;
import io.docstore.io.NoSpaceException;
import io.docstore.io.SyncPolicy;
import io.docstore.io.ThreadPriority;
import io.docstore.io.cache.SlotCache;
import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The index engine behind {@code LsmIndex}: writes (WAL then memory table), reads (newest source
 * first), freezing full memory tables, and the snapshot readers work on. Flushes and compactions
 * run in {@link Flusher} on a background thread; opening is in {@link Recovery}.
 *
 * <p>Thread-safety: one writer at a time ({@link #writeLock}; the contract is one writer thread);
 * any number of readers, which never take a lock: they retain the current {@link Snapshot}. The
 * snapshot is replaced under {@link #stateLock} by the writer (freeze) and the flusher (install).
 */
public final class IndexEngine implements java.io.Closeable {

  public static final long ABSENT = -1L;
  public static final long DELETED = -2L;

  private static final Logger LOG = LoggerFactory.getLogger(IndexEngine.class);

  final IndexOptions options;
  final Path dir;
  final IndexCounters counters = new IndexCounters();
  final BloomPager pager;

  /** Verified table pages, off heap; null when {@code pageCacheBytes} is 0. */
  final SlotCache pageCache;

  /**
   * Whether the tables' mappings are warm: while they are, lookups skip {@link #pageCache} ({@code
   * Table.find}).
   */
  final ColdReads pageReads = new ColdReads();

  final ReentrantLock writeLock = new ReentrantLock();
  final Object stateLock = new Object();

  /** WAL files on disk, by number; guarded by stateLock. */
  final TreeSet<Long> walFiles = new TreeSet<>();

  /**
   * WALs a rotation closed without a force (policy none), until {@link #sync} forces them or their
   * table's flush deletes them; guarded by stateLock. A sync (the store's checkpoint) covers every
   * put before it only if these are on disk too.
   */
  private final TreeSet<Path> unforcedWals = new TreeSet<>();

  private final ScheduledThreadPoolExecutor background;
  private final ScheduledThreadPoolExecutor bloomTask;
  final Flusher flusher;
  final BackgroundPacer pacer;

  /** Threads waiting in {@link #flush()} for the frozen tables to reach the disk. */
  private final AtomicInteger flushWaiters = new AtomicInteger();

  private volatile Snapshot current;

  /** Guarded by stateLock. */
  long nextFileNumber;

  /** Writer-owned; null when opened read-only. */
  private WalWriter wal;

  /**
   * Opened read-only ({@link #openReadOnly}): writes go to memory tables only, nothing is logged,
   * flushed or compacted, and nothing in the directory changes.
   */
  private boolean readOnly;

  volatile IOException backgroundFailure;
  volatile boolean closed;

  IndexEngine(IndexOptions options, Path dir, BloomPager pager) {
    this.options = options;
    this.dir = dir;
    this.pager = pager;
    this.pageCache =
        options.pageCacheBytes() >= io.docstore.index.table.TableFormat.PAGE_SIZE
            ? new SlotCache(
                options.pageCacheBytes(),
                io.docstore.index.table.TableFormat.PAGE_SIZE,
                ByteOrder.LITTLE_ENDIAN)
            : null;
    this.background = executor("index-flush-" + dir.getFileName(), options.backgroundNice());
    this.bloomTask = executor("index-bloom-" + dir.getFileName(), options.backgroundNice());
    this.flusher = new Flusher(this);
    this.pacer = new BackgroundPacer(options.backgroundWriteRate(), this::backgroundUrgent);
  }

  /** Someone waits for the background thread: a writer on full frozen tables, a flush, a close. */
  private boolean backgroundUrgent() {
    return closed || flushWaiters.get() > 0 || current.frozen.length >= options.maxFrozenTables();
  }

  /**
   * A one-thread daemon executor whose delayed tasks (flush retries) are dropped at shutdown; its
   * thread runs at nice {@code nice}, so flushes and compactions yield the CPU to lookups.
   */
  private static ScheduledThreadPoolExecutor executor(String name, int nice) {
    ScheduledThreadPoolExecutor e =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t =
                  new Thread(
                      () -> {
                        ThreadPriority.lowerCurrentThread(nice);
                        r.run();
                      },
                      name);
              t.setDaemon(true);
              return t;
            });
    e.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    e.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
    return e;
  }

  public static IndexEngine open(Path dir, IndexOptions options) throws IOException {
    return Recovery.open(dir, options, false);
  }

  /**
   * Opens the index for reading without changing its directory: WALs are replayed into memory as
   * far as they verify (a torn tail is left in place), no WAL is started, no file is deleted. Puts
   * then go to memory only and are lost at close (an offline reader indexes the queue's tail so).
   */
  public static IndexEngine openReadOnly(Path dir, IndexOptions options) throws IOException {
    return Recovery.open(dir, options, true);
  }

  /** Called by recovery once the first snapshot and WAL (null: read-only) exist. */
  void start(Snapshot first, WalWriter firstWal) {
    this.current = first;
    this.wal = firstWal;
    this.readOnly = firstWal == null;
    long every = options.bloomRebalanceMillis();
    bloomTask.scheduleWithFixedDelay(this::rebalanceBloom, every, every, TimeUnit.MILLISECONDS);
    if (first.active.isFull()) {
      // A replay larger than one memory table: freeze it now so it is flushed in the background.
      writeLock.lock();
      try {
        freeze();
      } catch (IOException e) {
        backgroundFailure = e;
      } finally {
        writeLock.unlock();
      }
    }
  }

  private void rebalanceBloom() {
    try {
      pager.rebalance();
    } catch (RuntimeException e) {
      LOG.error("bloom pager rebalance failed; pages stay as they are until the next round", e);
    }
  }

  public IndexCounters counters() {
    return counters;
  }

  public BloomPager pager() {
    return pager;
  }

  /** The index page cache, or null if off. */
  public SlotCache pageCache() {
    return pageCache;
  }

  /**
   * Mapped page reads that waited for the disk (each sends lookups to the page cache for a while).
   */
  /** Whether lookups read pages through mappings and the last timed ones found them in memory. */
  public boolean lookupsWarm() {
    return options.mappedReads() && pageReads.warm();
  }

  public long pageReadsMappedCold() {
    return pageReads.coldReads();
  }

  long allocateFileNumber() {
    synchronized (stateLock) {
      return nextFileNumber++;
    }
  }

  Snapshot acquire() throws IOException {
    while (true) {
      Snapshot s = current;
      if (s.tryRetain()) {
        return s;
      }
      checkOpen();
    }
  }

  Snapshot currentLocked() {
    return current;
  }

  /** Replaces the current snapshot; caller holds stateLock. */
  void installLocked(Snapshot next) {
    Snapshot old = current;
    current = next;
    old.release();
    stateLock.notifyAll();
  }

  private void checkOpen() throws IOException {
    if (closed) {
      throw new IOException("index " + dir + " is closed");
    }
  }

  public void put(long id, long value) throws IOException {
    writeLock.lock();
    try {
      checkOpen();
      MemTable m = current.active;
      if (!m.hasRoomFor(1)) {
        freeze();
        m = current.active;
      }
      if (!readOnly) {
        wal.awaitDurable(wal.append(id, value));
      }
      m.put(id, value);
      if (value == DELETED) {
        counters.deletes.increment();
      } else {
        counters.puts.increment();
      }
    } finally {
      writeLock.unlock();
    }
  }

  public void putAll(long[] ids, long[] values, int count) throws IOException {
    writeLock.lock();
    try {
      checkOpen();
      int chunkMax =
          Math.min(
              io.docstore.index.wal.WalFormat.MAX_COUNT,
              Math.max(1, current.active.maxEntries() / 2));
      List<int[]> chunks = new ArrayList<>();
      long pos = 0;
      // A batch goes into one memory table (one WAL) when it can, so a crash keeps all or none of
      // it: freeze first if the whole batch does not fit a non-empty table; past the budget only
      // while the table's arrays can hold it (staged: entries in chunks, not yet in the table).
      int staged = 0;
      for (int from = 0; from < count; ) {
        int n = Math.min(chunkMax, count - from);
        MemTable active = current.active;
        boolean split =
            staged == 0
                ? !active.hasRoomFor(n)
                    || (from == 0 && active.size() > 0 && !active.hasRoomFor(count))
                : !active.canHold(staged + n);
        if (split) {
          applyAndAwait(ids, values, chunks, pos);
          chunks.clear();
          staged = 0;
          freeze();
        }
        pos = readOnly ? 0 : wal.append(ids, values, from, n);
        chunks.add(new int[] {from, n});
        staged += n;
        from += n;
      }
      applyAndAwait(ids, values, chunks, pos);
    } finally {
      writeLock.unlock();
    }
  }

  private void applyAndAwait(long[] ids, long[] values, List<int[]> chunks, long pos)
      throws IOException {
    if (chunks.isEmpty()) {
      return;
    }
    if (!readOnly) {
      wal.awaitDurable(pos);
    }
    MemTable m = current.active;
    int deletes = 0;
    int total = 0;
    for (int[] c : chunks) {
      m.putAll(ids, values, c[0], c[1]);
      for (int i = c[0]; i < c[0] + c[1]; i++) {
        if (values[i] == DELETED) {
          deletes++;
        }
      }
      total += c[1];
    }
    counters.deletes.add(deletes);
    counters.puts.add(total - deletes);
  }

  /**
   * Freezes the active table and starts a new one with a new WAL; the flusher writes the frozen
   * one. Blocks while {@code maxFrozenTables} are already waiting (backpressure), and fails if the
   * flusher is failing meanwhile. Caller holds writeLock.
   */
  void freeze() throws IOException {
    if (readOnly) {
      // Kept in memory: nothing is written. Searched like any frozen table until close.
      synchronized (stateLock) {
        Snapshot s = current;
        MemTable[] frozen = new MemTable[s.frozen.length + 1];
        frozen[0] = s.active;
        System.arraycopy(s.frozen, 0, frozen, 1, s.frozen.length);
        s.active.markFrozen();
        installLocked(new Snapshot(new MemTable(options.memTableBytes(), 0, 0), frozen, s.tables));
      }
      return;
    }
    synchronized (stateLock) {
      long failuresBefore = -1;
      while (current.frozen.length >= options.maxFrozenTables()) {
        IOException failing = backgroundFailure;
        if (failing != null && failuresBefore < 0) {
          // The flusher is failing (a full disk, say): try it once more now instead of waiting for
          // its next retry, so the first write after space is freed goes through.
          failuresBefore = counters.backgroundFailures.get();
          background.execute(flusher::flushOne);
        } else if (failing != null && counters.backgroundFailures.get() != failuresBefore) {
          String m =
              "index flush is failing and "
                  + current.frozen.length
                  + " memory tables are waiting; refusing more writes until it recovers";
          throw NoSpaceException.isNoSpace(failing)
              ? new NoSpaceException("No space left on device: " + m, failing)
              : new IOException(m, failing);
        }
        try {
          stateLock.wait(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted while waiting for a flush", e);
        }
      }
    }
    // The new WAL is created before the old one is closed, so that a full disk at either step
    // leaves the old WAL open and the writer usable (the next freeze retries). The old WAL is
    // forced first (unless the policy is none): once a newer WAL is durable, an older one must be
    // whole, and a power loss may write back its unforced pages in any order.
    WalWriter old = wal;
    if (options.syncPolicy().mode() != SyncPolicy.Mode.NONE) {
      old.sync();
    }
    long number = allocateFileNumber();
    Path next = FileNames.path(dir, FileNames.Kind.WAL, number);
    WalWriter created;
    try {
      created =
          WalWriter.create(
              options.fileSystem(), next, number, options.syncPolicy(), counters::walFsync);
    } catch (IOException e) {
      discardWal(next, e);
      throw NoSpaceException.classify(e);
    }
    try {
      old.finish();
    } catch (IOException | RuntimeException e) {
      try {
        created.close();
      } catch (IOException | RuntimeException t) {
        e.addSuppressed(t);
      }
      discardWal(next, e);
      throw e;
    }
    counters.walBytesWritten.addAndGet(old.size());
    if (options.syncPolicy().mode() == SyncPolicy.Mode.NONE) {
      synchronized (stateLock) {
        unforcedWals.add(old.path());
      }
    }
    wal = created;
    synchronized (stateLock) {
      walFiles.add(number);
      Snapshot s = current;
      MemTable[] frozen = new MemTable[s.frozen.length + 1];
      frozen[0] = s.active;
      System.arraycopy(s.frozen, 0, frozen, 1, s.frozen.length);
      s.active.markFrozen();
      installLocked(
          new Snapshot(new MemTable(options.memTableBytes(), 0, number), frozen, s.tables));
    }
    background.execute(flusher::flushOne);
  }

  /** Deletes a WAL file that was never used (a failed rotation); failures go to {@code cause}. */
  private void discardWal(Path path, Throwable cause) {
    try {
      options.fileSystem().delete(path);
    } catch (IOException | RuntimeException t) {
      cause.addSuppressed(t);
    }
  }

  void retryLater() {
    if (!closed) {
      background.schedule(flusher::flushOne, 1, TimeUnit.SECONDS);
    }
  }

  /**
   * The value, {@link #DELETED} or {@link #ABSENT}. Lock-free; never waits for flush or compaction.
   */
  public long get(long id) throws IOException {
    Snapshot s = acquire();
    int probed = 0;
    try {
      long v = s.active.get(id);
      if (v != MemTable.MISSING) {
        return v;
      }
      for (MemTable m : s.frozen) {
        v = m.get(id);
        if (v != MemTable.MISSING) {
          return v;
        }
      }
      for (Table t : s.tables) {
        if (id < t.minId() || id > t.maxId()) {
          continue;
        }
        int answer = t.bloom().query(id);
        if (answer == BloomFilter.NO) {
          counters.bloomNo.increment();
          continue;
        }
        (answer == BloomFilter.MAYBE ? counters.bloomMaybe : counters.bloomNotResident).increment();
        probed++;
        counters.pagesRead.increment();
        v = t.find(id, pageCache, pageReads);
        if (v != -1L) {
          return v;
        }
      }
      return ABSENT;
    } finally {
      counters.probesPerGet[Math.min(probed, IndexCounters.PROBE_BUCKETS - 1)].increment();
      s.release();
    }
  }

  /**
   * Live entries with id >= fromId over a snapshot taken now (the active table is copied under the
   * writer lock).
   */
  public EntryIterator scan(long fromId) throws IOException {
    MemTable.Sorted activeCopy;
    Snapshot s;
    writeLock.lock();
    try {
      checkOpen();
      s = acquire();
      activeCopy = s.active.sorted();
    } finally {
      writeLock.unlock();
    }
    try {
      List<EntryIterator> sources = new ArrayList<>();
      sources.add(new ArrayIterator(activeCopy.ids(), activeCopy.values(), fromId));
      for (MemTable m : s.frozen) {
        MemTable.Sorted f = m.sorted();
        sources.add(new ArrayIterator(f.ids(), f.values(), fromId));
      }
      for (Table t : s.tables) {
        sources.add(t.iterator(fromId));
      }
      return new SnapshotCursor(new MergingIterator(sources, true), s);
    } catch (IOException | RuntimeException e) {
      s.release();
      throw e;
    }
  }

  public void sync() throws IOException {
    writeLock.lock();
    try {
      checkOpen();
      if (!readOnly) {
        wal.sync();
        forceRotatedWals();
      }
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * Forces the WALs rotations closed unforced (policy none), so that after a sync every older WAL
   * is whole on disk, as recovery requires of any WAL but the newest: without it a power loss could
   * write back their pages out of order and the index would not open. A WAL its flush deleted
   * meanwhile needs nothing.
   */
  private void forceRotatedWals() throws IOException {
    List<Path> toForce;
    synchronized (stateLock) {
      toForce = new ArrayList<>(unforcedWals);
    }
    for (Path p : toForce) {
      try (io.docstore.io.WritableFile f = options.fileSystem().openAppend(p)) {
        f.force();
      } catch (java.nio.file.NoSuchFileException flushedAndDeleted) {
        // its entries are in a table now
      }
      synchronized (stateLock) {
        unforcedWals.remove(p);
      }
    }
  }

  /** Hands the active WAL's buffered records to the OS without fsync (see LsmIndex#flushToOs). */
  public void flushToOs() throws IOException {
    writeLock.lock();
    try {
      checkOpen();
      if (!readOnly) {
        wal.drain();
      }
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * Freezes the active table (if it holds anything) and waits until every frozen table is on disk.
   * Runs a flush attempt at once (so a flush failing earlier, e.g. on a full disk, is retried now)
   * and throws if an attempt started after this call fails.
   */
  public void flush() throws IOException {
    if (readOnly) {
      throw new IOException("index " + dir + " was opened read-only: nothing is flushed");
    }
    awaitFlushes();
    writeLock.lock();
    try {
      checkOpen();
      if (current.active.size() > 0) {
        freeze();
      }
    } finally {
      writeLock.unlock();
    }
    awaitFlushes();
  }

  private void awaitFlushes() throws IOException {
    flushWaiters.incrementAndGet();
    try {
      awaitFlushesPaced();
    } finally {
      flushWaiters.decrementAndGet();
    }
  }

  private void awaitFlushesPaced() throws IOException {
    // The failure count when the attempt run for this call starts: an attempt already running (one
    // that began before a full disk was freed, say) may still fail, and must not fail this call.
    // The background thread is single, so that attempt ends before this call's begins.
    java.util.concurrent.atomic.AtomicLong failuresAtStart =
        new java.util.concurrent.atomic.AtomicLong(-1);
    background.execute(
        () -> {
          failuresAtStart.set(counters.backgroundFailures.get());
          flusher.flushOne();
        });
    synchronized (stateLock) {
      while (current.frozen.length > 0) {
        long base = failuresAtStart.get();
        if (base >= 0 && counters.backgroundFailures.get() != base && backgroundFailure != null) {
          throw new IOException("flush failed", backgroundFailure);
        }
        checkOpen();
        try {
          stateLock.wait(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted while waiting for a flush", e);
        }
      }
    }
  }

  /** Writes strictly ascending entries as one new newest index file; see {@link Ingester}. */
  public void ingestSorted(long[] ids, long[] values, int count) throws IOException {
    checkOpen();
    Ingester.ingest(this, ids, values, count);
  }

  /** Runs {@code task} on the background thread, so no flush or compaction runs meanwhile. */
  <T> T onBackground(java.util.concurrent.Callable<T> task) throws IOException {
    try {
      return background.submit(task).get();
    } catch (java.util.concurrent.RejectedExecutionException e) {
      throw new IOException("index " + dir + " is closed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while waiting for the index's background thread", e);
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof IOException io) {
        throw io;
      }
      if (c instanceof RuntimeException r) {
        throw r;
      }
      throw new IOException(c);
    }
  }

  /** Sizes for stats: [on-disk tables, frozen tables, active entries]. */
  public long[] shape() throws IOException {
    Snapshot s = acquire();
    try {
      long frozenEntries = 0;
      for (MemTable m : s.frozen) {
        frozenEntries += m.size();
      }
      return new long[] {s.tables.length, s.frozen.length, s.active.size(), frozenEntries};
    } finally {
      s.release();
    }
  }

  /** Entry counts of the on-disk tables, newest first. */
  public List<Long> tableSizes() throws IOException {
    Snapshot s = acquire();
    try {
      List<Long> sizes = new ArrayList<>();
      for (Table t : s.tables) {
        sizes.add(t.entryCount());
      }
      return sizes;
    } finally {
      s.release();
    }
  }

  /**
   * Syncs the WAL and closes. A flush in progress finishes; frozen tables not yet flushed stay in
   * their WAL files and are replayed by the next open.
   */
  @Override
  public void close() throws IOException {
    writeLock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      bloomTask.shutdownNow();
      background.shutdown();
      try {
        background.awaitTermination(10, TimeUnit.MINUTES);
        bloomTask.awaitTermination(1, TimeUnit.MINUTES);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      try {
        if (readOnly) {
          return; // nothing was written; the finally below releases the tables
        }
        wal.close();
        if (!wal.holdsRecords()) {
          // Opened and closed without a write (an offline get or stats): leave no file behind.
          options.fileSystem().delete(wal.path());
        }
      } finally {
        synchronized (stateLock) {
          current.release();
        }
        pager.close();
      }
    } finally {
      writeLock.unlock();
    }
  }
}
