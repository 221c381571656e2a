package io.docstore.queue.follow;

import java.util.concurrent.atomic.LongAdder;

/**
 * Running counters of a {@link QueueFollower}; a metrics layer reads them. Thread-safe
 * (LongAdders).
 */
public final class FollowerCounters {
  /**
   * Blocks that failed their checksum or structure checks in a region the manifest declares
   * durable.
   */
  public final LongAdder checksumFailures = new LongAdder();

  /** Blocks whose first sequence did not follow the previous block's last. */
  public final LongAdder gaps = new LongAdder();

  /** Hollow segments stepped over while ingesting from the start (their records reclaimed). */
  public final LongAdder reclaimedSegmentsSkipped = new LongAdder();

  /** Copies found shorter than what was already ingested from them. */
  public final LongAdder shrunkFiles = new LongAdder();

  /** Copies whose verified prefix does not chain to the manifest's value (a diverged copy). */
  public final LongAdder chainMismatches = new LongAdder();

  /** Manifests that failed their checks. */
  public final LongAdder manifestErrors = new LongAdder();

  /** Reads by address that hit a damaged block. */
  public final LongAdder readCorruptions = new LongAdder();

  /** Damaged copies deleted so that the next pull fetches them whole. */
  public final LongAdder refetches = new LongAdder();

  /** Copies replaced by a new file (rsync's rename) and reopened. */
  public final LongAdder reopens = new LongAdder();

  public final LongAdder blocksIngested = new LongAdder();
  public final LongAdder bytesIngested = new LongAdder();
  public final LongAdder recordsIngested = new LongAdder();
}
