package io.docstore.queue.follow;

import io.docstore.queue.format.StateFileLayout;

/**
 * Byte layout of a replica's ingestion point (big-endian); see {@code
 * docs/formats/replica-point.md}.
 *
 * <pre>
 * point := magic:u32 formatName:16 bytes ASCII version:u32 segment:u64 offset:u64 nextSequence:u64
 *          chain:u32 savedAtMillis:u64 crc:u32
 * </pre>
 *
 * <p>{@code crc} is the masked CRC32C of every byte before it.
 */
public final class FollowPointFormat {

  public static final int SEGMENT = StateFileLayout.FIELDS;
  public static final int OFFSET = SEGMENT + 8;
  public static final int NEXT_SEQUENCE = OFFSET + 8;
  public static final int CHAIN = NEXT_SEQUENCE + 8;
  public static final int SAVED_AT = CHAIN + 4;
  public static final int CRC = SAVED_AT + 8;
  public static final int LENGTH = CRC + 4;

  public static final StateFileLayout LAYOUT =
      new StateFileLayout(0xD0C5_9017, "docstore.replpnt", 1, LENGTH, "ingestion point");

  private FollowPointFormat() {}
}
