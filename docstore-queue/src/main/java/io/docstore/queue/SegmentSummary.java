package io.docstore.queue;

/**
 * One segment of the queue as it stands: its number, the sequences it holds, the bytes of its
 * blocks (header and footer aside) and whether it is sealed. {@code records} counts sequences, so
 * it includes deletes; dictionary, padding and sync-mark blocks hold none.
 */
public record SegmentSummary(
    long number, long firstSequence, long lastSequence, long blockBytes, boolean sealed) {

  /** Records in the segment (0 for an active segment that holds none yet). */
  public long records() {
    return Math.max(0, lastSequence - firstSequence + 1);
  }
}
