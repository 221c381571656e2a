package io.docstore.queue.follow;

import java.nio.charset.StandardCharsets;

/**
 * Byte layout of a replica's ingestion point (big-endian); see {@code docs/formats/replica-point.md}.
 *
 * <pre>
 * point := magic:u32 formatName:16 bytes ASCII version:u32 segment:u64 offset:u64 nextSequence:u64
 *          chain:u32 savedAtMillis:u64 crc:u32
 * </pre>
 *
 * <p>{@code crc} is the masked CRC32C of every byte before it.
 */
public final class FollowPointFormat {

  public static final int MAGIC_VALUE = 0xD0C5_9017;
  public static final String FORMAT_NAME = "docstore.replpnt";
  public static final byte[] FORMAT_NAME_BYTES = FORMAT_NAME.getBytes(StandardCharsets.US_ASCII);
  public static final int VERSION = 1;

  public static final int MAGIC = 0;
  public static final int NAME = MAGIC + 4;
  public static final int NAME_LENGTH = 16;
  public static final int FORMAT_VERSION = NAME + NAME_LENGTH;
  public static final int SEGMENT = FORMAT_VERSION + 4;
  public static final int OFFSET = SEGMENT + 8;
  public static final int NEXT_SEQUENCE = OFFSET + 8;
  public static final int CHAIN = NEXT_SEQUENCE + 8;
  public static final int SAVED_AT = CHAIN + 4;
  public static final int CRC = SAVED_AT + 8;
  public static final int LENGTH = CRC + 4;

  private FollowPointFormat() {
    assert FORMAT_NAME_BYTES.length == NAME_LENGTH;
  }
}
