package io.docstore.queue.segment;

import java.util.concurrent.atomic.LongAdder;

/**
 * The queue's running counters, shared by writer, readers and recovery; the facade snapshots them
 * into {@code QueueStats}. Thread-safe (LongAdders: cheap under contention).
 */
public final class QueueCounters {
  public final LongAdder appends = new LongAdder();
  public final LongAdder bodyBytes = new LongAdder();
  public final LongAdder rawBytes = new LongAdder();
  public final LongAdder storedBytes = new LongAdder();
  public final LongAdder blocks = new LongAdder();
  public final LongAdder compressedBlocks = new LongAdder();
  public final LongAdder segmentsCreated = new LongAdder();
  public final LongAdder segmentsSealed = new LongAdder();

  /** Segments replaced by their hollow form ({@code DocQueue#reclaim}). */
  public final LongAdder segmentsReclaimed = new LongAdder();

  public final LongAdder fsyncs = new LongAdder();
  public final LongAdder tornTailBytesDropped = new LongAdder();
  public final LongAdder blockReads = new LongAdder();
  public final LongAdder blockReadsMapped = new LongAdder();
  public final LongAdder blockReadsMappedCold = new LongAdder();
  public final LongAdder blockCacheHits = new LongAdder();

  /** Block writes refused for lack of space (cut back, records discarded, writer still usable). */
  public final LongAdder noSpaceFailures = new LongAdder();

  /** Segment rolls postponed for lack of space (retried before the next block). */
  public final LongAdder rollsPostponed = new LongAdder();
}
