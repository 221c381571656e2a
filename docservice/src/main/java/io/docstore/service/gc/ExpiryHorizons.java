package io.docstore.service.gc;

import io.docstore.queue.RecordBody;

/**
 * Collects, for one batch of writes, the latest expiry per segment written to, and hands it to the
 * space reclamation once per segment ({@link SpaceReclaimer#written}): a batch lands in one or two
 * segments, so this is one map update per segment per batch, not per record. Not thread-safe: one
 * per batch.
 */
public final class ExpiryHorizons {

  private final SpaceReclaimer reclaimer;
  private long segment = -1;
  private long latest;

  ExpiryHorizons(SpaceReclaimer reclaimer) {
    this.reclaimer = reclaimer;
  }

  /** A version written to {@code segment} that expires at {@code expiresAtMillis} (0: never). */
  public void add(long segment, long expiresAtMillis) {
    long e = expiresAtMillis == RecordBody.NEVER ? Long.MAX_VALUE : expiresAtMillis;
    if (segment != this.segment) {
      flush();
      this.segment = segment;
      latest = e;
    } else {
      latest = Math.max(latest, e);
    }
  }

  /** Hands on what was collected. */
  public void flush() {
    if (segment >= 0) {
      reclaimer.written(segment, latest);
      segment = -1;
    }
  }
}
