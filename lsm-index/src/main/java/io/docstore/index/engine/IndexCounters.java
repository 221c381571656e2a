package io.docstore.index.engine;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The live metric counters of one index: adders for paths many threads hit, atomics for the rest.
 * Thread-safe; read by {@code LsmIndex.stats()} into an immutable snapshot.
 */
public final class IndexCounters {

  /** Histogram buckets for on-disk indexes probed per get: 0..7, and 8 or more. */
  public static final int PROBE_BUCKETS = 9;

  public final LongAdder puts = new LongAdder();
  public final LongAdder deletes = new LongAdder();
  public final LongAdder[] probesPerGet = new LongAdder[PROBE_BUCKETS];
  public final LongAdder pagesRead = new LongAdder();
  public final LongAdder bloomNo = new LongAdder();
  public final LongAdder bloomMaybe = new LongAdder();
  public final LongAdder bloomNotResident = new LongAdder();
  public final AtomicLong flushes = new AtomicLong();
  public final AtomicLong compactions = new AtomicLong();
  public final AtomicLong tableEntriesWritten = new AtomicLong();
  public final AtomicLong tableBytesWritten = new AtomicLong();
  public final AtomicLong compactionEntriesWritten = new AtomicLong();
  public final AtomicLong compactionBytesWritten = new AtomicLong();
  public final AtomicLong backgroundFailures = new AtomicLong();
  public final AtomicLong walFsyncs = new AtomicLong();
  public final AtomicLong walFsyncNanos = new AtomicLong();
  public final AtomicLong walFsyncMaxNanos = new AtomicLong();
  public final AtomicLong walBytesDropped = new AtomicLong();
  public final AtomicLong walBytesWritten = new AtomicLong();

  /**
   * What the background thread is writing right now: {@link #IDLE}, {@link #FLUSHING} or {@link
   * #COMPACTING}.
   */
  public final AtomicInteger backgroundWork = new AtomicInteger(IDLE);

  /** {@link #backgroundWork}: no table is being written. */
  public static final int IDLE = 0;

  /** {@link #backgroundWork}: a memory table is being written alone. */
  public static final int FLUSHING = 1;

  /** {@link #backgroundWork}: a memory table is being merged with on-disk indexes. */
  public static final int COMPACTING = 2;

  public IndexCounters() {
    for (int i = 0; i < PROBE_BUCKETS; i++) {
      probesPerGet[i] = new LongAdder();
    }
  }

  /** The fsync latency hook given to each WAL's group commit. */
  public void walFsync(long nanos) {
    walFsyncs.incrementAndGet();
    walFsyncNanos.addAndGet(nanos);
    walFsyncMaxNanos.accumulateAndGet(nanos, Math::max);
  }
}
