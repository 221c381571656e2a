package io.docstore.queue.replication;

import io.docstore.queue.format.StateFileLayout;

/**
 * Byte layout of the replication manifest (big-endian); see {@code
 * docs/formats/replication-manifest.md}.
 *
 * <pre>
 * manifest := magic:u32 formatName:16 bytes ASCII version:u32 segment:u64 baseSequence:u64
 *             durableLength:u64 lastSequence:u64 blockCount:u64 chain:u32 publishedAtMillis:u64 crc:u32
 * </pre>
 *
 * <p>{@code crc} is the masked CRC32C of every byte before it. {@code chain} is the {@link
 * BlockCrcChain} value over the crc fields of the segment's first {@code blockCount} blocks.
 */
public final class ManifestFormat {

  public static final String FILE_NAME = "replication.manifest";

  public static final int SEGMENT = StateFileLayout.FIELDS;
  public static final int BASE_SEQUENCE = SEGMENT + 8;
  public static final int DURABLE_LENGTH = BASE_SEQUENCE + 8;
  public static final int LAST_SEQUENCE = DURABLE_LENGTH + 8;
  public static final int BLOCK_COUNT = LAST_SEQUENCE + 8;
  public static final int CHAIN = BLOCK_COUNT + 8;
  public static final int PUBLISHED_AT = CHAIN + 4;
  public static final int CRC = PUBLISHED_AT + 8;
  public static final int LENGTH = CRC + 4;

  public static final StateFileLayout LAYOUT =
      new StateFileLayout(0xD0C5_4E9F, "docstore.replman", 1, LENGTH, "replication manifest");

  private ManifestFormat() {}
}
