package io.docstore.queue.format;

/**
 * Byte layout of a block (all integers big-endian); see {@code docs/formats/segment.md}.
 *
 * <pre>
 * block   := header payload
 * header  := crc:u32 storedLength:u32 rawLength:u32 recordCount:u16 flags:u8 reserved:u8 firstSequence:u64
 * payload := storedLength bytes: raw, or LZ4 block of raw when flags bit 0 is set
 * raw     := recordStart:u32 * recordCount  record * recordCount       (rawLength bytes)
 * record  := id:u64 acceptedAtMillis:u64 op:u8 body                     (body runs to the next recordStart or rawLength)
 * </pre>
 *
 * <p>{@code crc} is the masked CRC32C of every header byte after it and the stored payload, so a
 * flipped bit anywhere in the block, including its lengths, fails verification. Record {@code i}
 * has sequence {@code firstSequence + i}.
 */
public final class BlockFormat {

  public static final int CRC = 0;
  public static final int STORED_LENGTH = CRC + 4;
  public static final int RAW_LENGTH = STORED_LENGTH + 4;
  public static final int RECORD_COUNT = RAW_LENGTH + 4;
  public static final int FLAGS = RECORD_COUNT + 2;
  public static final int RESERVED = FLAGS + 1;
  public static final int FIRST_SEQUENCE = RESERVED + 1;
  public static final int HEADER_LENGTH = FIRST_SEQUENCE + 8;

  /** Flags bit 0: the payload is LZ4-compressed. No other bit may be set in version 1. */
  public static final int FLAG_LZ4 = 1;

  /** Bytes per entry of the offset table at the start of the raw payload. */
  public static final int OFFSET_ENTRY = 4;

  public static final int RECORD_ID = 0;
  public static final int RECORD_ACCEPTED_AT = RECORD_ID + 8;
  public static final int RECORD_OP = RECORD_ACCEPTED_AT + 8;
  public static final int RECORD_BODY = RECORD_OP + 1;

  public static final byte OP_PUT = 0;
  public static final byte OP_DELETE = 1;

  /** Largest stored or raw payload a version 1 reader accepts (a record of the largest allowed body fits). */
  public static final int MAX_PAYLOAD = 1 << 28;

  private BlockFormat() {}

  /** Raw bytes a record with a body of {@code bodyLength} adds to a block, its offset entry included. */
  public static int rawRecordCost(int bodyLength) {
    return OFFSET_ENTRY + RECORD_BODY + bodyLength;
  }
}
