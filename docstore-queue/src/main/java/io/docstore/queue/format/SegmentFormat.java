package io.docstore.queue.format;

import java.nio.charset.StandardCharsets;

/**
 * Byte layout of a segment file's header and footer (big-endian); see {@code
 * docs/formats/segment.md}.
 *
 * <pre>
 * segment := header block* footer?          (footer only in sealed segments)
 * header  := magic:u32 formatName:16 bytes ASCII version:u32 segmentNumber:u64 baseSequence:u64 crc:u32
 * footer  := crc:u32 footerMagic:u32 recordCount:u64 firstSequence:u64 lastSequence:u64
 *            blockCount:u64 blocksEnd:u64 blockCrcDigest:u32 reserved:u32
 * </pre>
 *
 * <p>The header crc covers the header bytes before it; the footer crc covers the footer bytes after
 * it. {@code blockCrcDigest} is the masked CRC32C of every block's stored crc field in file order,
 * so a verifier can tell that no block was dropped, duplicated or reordered. The footer magic has
 * its top bit set and so can never be read as a block's stored length.
 */
public final class SegmentFormat {

  public static final int MAGIC_VALUE = 0xD0C5_0E0E;
  public static final String FORMAT_NAME = "docstore.segment";
  public static final byte[] FORMAT_NAME_BYTES = FORMAT_NAME.getBytes(StandardCharsets.US_ASCII);

  /**
   * Version written (docs/formats/segment.md, "Versions"): 2 added per-record checksums, 3 records
   * compressed one by one, 4 sync marks, 5 the record kinds PUT_EXPIRING, RELOCATED and DROPPED, 6
   * the record kind GROUPS, 7 the record kind SOURCE, 8 RELOCATED records stored split. Every older
   * version is still read; an older active segment is sealed at open so that new blocks go to a
   * current one.
   */
  public static final int VERSION = 8;

  public static final int MIN_SUPPORTED_VERSION = 1;

  public static final int MAGIC = 0;
  public static final int NAME = MAGIC + 4;
  public static final int NAME_LENGTH = 16;
  public static final int HEADER_VERSION = NAME + NAME_LENGTH;
  public static final int SEGMENT_NUMBER = HEADER_VERSION + 4;
  public static final int BASE_SEQUENCE = SEGMENT_NUMBER + 8;
  public static final int HEADER_CRC = BASE_SEQUENCE + 8;
  public static final int HEADER_LENGTH = HEADER_CRC + 4;

  public static final int FOOTER_MAGIC_VALUE = 0xF00D_5E9A;
  public static final int FOOTER_CRC = 0;
  public static final int FOOTER_MAGIC = FOOTER_CRC + 4;
  public static final int RECORD_COUNT = FOOTER_MAGIC + 4;
  public static final int FIRST_SEQUENCE = RECORD_COUNT + 8;
  public static final int LAST_SEQUENCE = FIRST_SEQUENCE + 8;
  public static final int BLOCK_COUNT = LAST_SEQUENCE + 8;
  public static final int BLOCKS_END = BLOCK_COUNT + 8;
  public static final int BLOCK_CRC_DIGEST = BLOCKS_END + 8;

  /** Footer flags (version 5; 0 before): {@link #FOOTER_FLAG_RECLAIMED} or 0. */
  public static final int FOOTER_FLAGS = BLOCK_CRC_DIGEST + 4;

  public static final int FOOTER_LENGTH = FOOTER_FLAGS + 4;

  /**
   * A hollow segment: its records were reclaimed (relocated or garbage), so it holds no block; the
   * footer keeps its sequence range.
   */
  public static final int FOOTER_FLAG_RECLAIMED = 1;

  private SegmentFormat() {
    assert FORMAT_NAME_BYTES.length == NAME_LENGTH;
  }
}
