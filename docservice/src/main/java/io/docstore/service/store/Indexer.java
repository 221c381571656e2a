package io.docstore.service.store;

import io.docstore.index.LsmIndex;
import io.docstore.queue.QueueRecord;
import io.docstore.queue.QueueTailer;
import io.docstore.service.cache.DocCache;
import java.io.Closeable;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Applies queue records to the index and the cache strictly in sequence order, reading them back
 * from the queue with one tailer. It is the only writer of the index, so the index can never map an
 * ID to an older version than one already applied, and recovery (re-indexing after the checkpoint)
 * runs the very same code as live ingestion.
 *
 * <p>Writers call {@link #catchUpTo} with a sequence they know durable; whichever writer holds the
 * lock applies every record up to its own sequence (possibly other writers' records too), so no
 * record is applied before it is durable, and none is skipped.
 *
 * <p>Thread-safe: {@link #catchUpTo} serialises on one lock; {@link #appliedThrough} is lock-free.
 */
public final class Indexer implements Closeable {

  private static final int BATCH = 1024;

  private final QueueTailer tailer;
  private final LsmIndex index;
  private final DocCache cache;
  private final StoreMetrics metrics;
  private final ReentrantLock lock = new ReentrantLock();
  private final RecordBatch batch = new RecordBatch(BATCH);
  private volatile long appliedThrough;

  /**
   * The last record taken from the tailer and applied, or held by the batch (a GROUPS record whose
   * document comes next); {@link #appliedThrough} stays just before a held one, so that a
   * checkpoint never splits the pair. Guarded by {@link #lock}.
   */
  private long reached;

  /** Live records per segment, kept up to date with each batch; null when not counted. */
  private final LiveRecords liveRecords;

  /**
   * Records read from the tailer into {@link #batch} but not yet applied: the index refused them (a
   * full disk), so the next {@link #catchUpTo} applies them first instead of skipping them.
   */
  private int pending;

  /** The sequence of the last pending record (valid while {@link #pending} is positive). */
  private long pendingLast;

  /**
   * @param tailer positioned at {@code appliedThrough + 1}
   * @param appliedThrough the sequence already reflected in the index (the checkpoint)
   * @param liveRecords the live records per segment to keep up to date (counted from {@code
   *     index}), or null
   */
  public Indexer(
      QueueTailer tailer,
      LsmIndex index,
      DocCache cache,
      StoreMetrics metrics,
      long appliedThrough,
      LiveRecords liveRecords) {
    this.liveRecords = liveRecords;
    this.tailer = tailer;
    this.index = index;
    this.cache = cache;
    this.metrics = metrics;
    this.appliedThrough = appliedThrough;
    this.reached = appliedThrough;
  }

  /**
   * The store has field groups: writes set or clear their projections' group keys too (see {@link
   * RecordBatch#groups}).
   */
  public void groups(RecordBatch.Versions versions) {
    batch.groups(versions);
  }

  /**
   * From now on every record applied is handed to {@code p} once it is in the index and the cache
   * (see {@link RecordBatch#positions}).
   */
  public void positions(VisiblePositions p) {
    batch.positions(p);
  }

  /** The highest sequence whose record is visible through the index (and cache). */
  public long appliedThrough() {
    return appliedThrough;
  }

  /**
   * Applies every record up to {@code sequence}, which the caller knows durable and readable; waits
   * at most {@code timeoutMillis} for the tailer to surface it.
   *
   * @param live whether to record freshness (false while recovering old records at open)
   */
  public void catchUpTo(long sequence, long timeoutMillis, boolean live) throws IOException {
    if (appliedThrough >= sequence) {
      return;
    }
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    lock.lock();
    try {
      while (reached < sequence) {
        int n = pending;
        long last = n == 0 ? reached : pendingLast;
        while (n < BATCH && last < sequence) {
          QueueRecord r = n == 0 ? nextOrTimeout(deadline, sequence) : tailer.poll();
          if (r == null) {
            break;
          }
          long expected = last + 1;
          // Sequences of a hollow segment were reclaimed: the tailer steps over them.
          if (r.sequence() != expected
              && !(r.sequence() > expected && tailer.reclaimedThrough() >= r.sequence() - 1)) {
            throw new IOException(
                "queue tailer returned sequence "
                    + r.sequence()
                    + ", expected "
                    + expected
                    + ": the queue has a gap; refusing to index past it");
          }
          batch.set(n++, r);
          pending = n;
          pendingLast = last = r.sequence();
        }
        apply(n, live);
        if (n > 0) {
          reached = last;
        }
        if (reached < sequence && tailer.reclaimedThrough() >= sequence) {
          reached = tailer.reclaimedThrough(); // the rest was reclaimed
        }
        appliedThrough = batch.holdsGroups() ? reached - 1 : reached;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while indexing through sequence " + sequence, e);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Applies whatever the tailer has available now, up to {@code lastSequence} (recovery at open).
   * An index built from the queue's first record (new, or rebuilt) judges relocated records by
   * version while it does ({@link RecordBatch#rebuilding}), reading them through {@code versions}.
   *
   * @return the number of records applied
   */
  public long recover(long lastSequence, RecordBatch.Versions versions) throws IOException {
    long before = appliedThrough;
    if (before == 0) {
      batch.rebuilding(versions);
    }
    try {
      catchUpTo(lastSequence, 30_000, false);
    } finally {
      batch.live();
    }
    metrics.recoveredRecords.increment(appliedThrough - before);
    return appliedThrough - before;
  }

  private QueueRecord nextOrTimeout(long deadline, long sequence)
      throws IOException, InterruptedException {
    QueueRecord r = tailer.poll();
    if (r == null && tailer.reclaimedThrough() >= sequence) {
      return null; // what is left to apply was reclaimed
    }
    long wait = deadline - System.nanoTime();
    if (r == null && wait > 0) {
      r = tailer.next(wait, TimeUnit.NANOSECONDS);
    }
    if (r == null) {
      throw new IOException(
          "record "
              + (reached + 1)
              + " (awaited up to "
              + sequence
              + ") is durable but the queue tailer did not surface it in time");
    }
    return r;
  }

  /** Applies the batch ({@link RecordBatch} says what each record kind does). */
  private void apply(int n, boolean live) throws IOException {
    batch.apply(n, index, liveRecords); // on failure the batch stays pending for the next call
    pending = 0;
    long now = System.currentTimeMillis();
    batch.ingested(
        cache,
        n,
        r -> {
          if (live) {
            metrics.recordAcceptedToReadable(now - r.acceptedAtMillis());
          }
        });
  }

  @Override
  public void close() throws IOException {
    lock.lock();
    try {
      tailer.close();
    } finally {
      lock.unlock();
    }
  }
}
