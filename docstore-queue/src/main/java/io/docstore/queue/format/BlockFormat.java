package io.docstore.queue.format;

/**
 * Byte layout of a block (all integers big-endian); see {@code docs/formats/segment.md}.
 *
 * <pre>
 * block   := header payload
 * header  := crc:u32 storedLength:u32 rawLength:u32 recordCount:u16 flags:u8 reserved:u8 firstSequence:u64
 * payload := storedLength bytes: LZ4 block of raw when flags bit 0 is set;
 *            raw recordCrc:u32 * recordCount when flags bit 1 is set (segment version 2);
 *            zrecords when flags bit 2 is set (segment version 3);
 *            a zstd dictionary when flags bit 3 is set (segment version 3, recordCount 0, first block only);
 *            zero bytes when flags bit 4 is set (segment version 3, recordCount 0: padding to a page end);
 *            syncedEnd:u64 when flags bit 5 is set (segment version 4, recordCount 0: a sync mark);
 *            raw alone when none is set (segment version 1)
 * zrecords:= dictId:u32 zstart:u32 * (recordCount + 1) recordCrc:u32 * recordCount zrecord * recordCount pad
 *            (zstart from the payload start; zstart[recordCount] = end of the last zrecord; pad = zero bytes)
 * zrecord := id:u64 acceptedAtMillis:u64 op:u8 bodyLength:u32 storedBody     (zstd frame with the dictionary, or
 *            the body itself when its stored length equals bodyLength; dictId 0: every body as it is)
 * raw     := recordStart:u32 * recordCount  record * recordCount       (rawLength bytes)
 * record  := id:u64 acceptedAtMillis:u64 op:u8 body                     (body runs to the next recordStart or rawLength)
 * </pre>
 *
 * <p>{@code crc} is the masked CRC32C of every header byte after it and the stored payload, so a
 * flipped bit anywhere in the block, including its lengths, fails verification. Record {@code i}
 * has sequence {@code firstSequence + i}; its {@code recordCrc} is the masked CRC32C of that
 * sequence (8 bytes) followed by the record's bytes, so a reader of one record from an uncompressed
 * block can check just that record ({@code io.docstore.queue.block.RecordChecksum}).
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

  /** Flags bit 0: the payload is LZ4-compressed. */
  public static final int FLAG_LZ4 = 1;

  /**
   * Flags bit 1 (segment version 2): the raw payload is stored uncompressed and followed by one
   * {@link #RECORD_CRC}-byte checksum per record. Never set together with {@link #FLAG_LZ4}.
   */
  public static final int FLAG_RECORD_CRCS = 2;

  /**
   * Flags bit 2 (segment version 3): records stored one by one, each body compressed on its own
   * with the segment's dictionary (zstd) or stored as it is, so a reader of one record checks and
   * decompresses one record; the block carries a checksum per record and may end in zero padding up
   * to a page boundary. {@code rawLength} is the length of the same block decoded to the plain
   * layout. Never set together with another flag.
   */
  public static final int FLAG_ZSTD_RECORDS = 4;

  /**
   * Flags bit 3 (segment version 3): the block holds no record but the segment's zstd dictionary
   * ({@code storedLength == rawLength} bytes); only ever the first block of a segment.
   */
  public static final int FLAG_DICTIONARY = 8;

  /**
   * Flags bit 4 (segment version 3): the block holds no record, only zero bytes ({@code
   * storedLength == rawLength}): it fills the rest of a page so that the next block starts on one.
   */
  public static final int FLAG_PADDING = 16;

  /**
   * Flags bit 5 (segment version 4): a sync mark. The block holds no record, only {@link
   * #MARK_SYNCED_END}: every byte of its segment before that offset had been forced to disk when
   * the mark was written. Recovery uses it to tell damage before the durable point (corruption)
   * from pages written back out of order after a power loss (a torn tail).
   */
  public static final int FLAG_SYNC_MARK = 32;

  /** Offset, in a sync mark's payload, of the durable length it claims (u64). */
  public static final int MARK_SYNCED_END = 0;

  /** Payload bytes of a sync mark. */
  public static final int MARK_PAYLOAD = MARK_SYNCED_END + 8;

  /**
   * Bytes before the offset table of a {@link #FLAG_ZSTD_RECORDS} payload: the dictionary's id (0:
   * none).
   */
  public static final int ZSTD_DICT_ID = 0;

  public static final int ZSTD_TABLE = ZSTD_DICT_ID + 4;

  /** Bytes per entry of the offset table at the start of the raw payload. */
  public static final int OFFSET_ENTRY = 4;

  /** Bytes per record checksum after the raw payload of a block with {@link #FLAG_RECORD_CRCS}. */
  public static final int RECORD_CRC = 4;

  public static final int RECORD_ID = 0;
  public static final int RECORD_ACCEPTED_AT = RECORD_ID + 8;
  public static final int RECORD_OP = RECORD_ACCEPTED_AT + 8;
  public static final int RECORD_BODY = RECORD_OP + 1;

  /**
   * A stored record of a {@link #FLAG_ZSTD_RECORDS} block: the plain record header plus the body's
   * length.
   */
  public static final int ZRECORD_BODY_LENGTH = RECORD_BODY;

  public static final int ZRECORD_BODY = ZRECORD_BODY_LENGTH + 4;

  public static final byte OP_PUT = 0;
  public static final byte OP_DELETE = 1;

  /** Segment version 5: a document with an expiry ({@code expiresAtMillis:u64} first). */
  public static final byte OP_PUT_EXPIRING = 2;

  /** Segment version 5: a live version copied by the space reclamation. */
  public static final byte OP_RELOCATED = 3;

  /** Segment version 5: an expired version the space reclamation gave up. */
  public static final byte OP_DROPPED = 4;

  /** Segment version 6: the projections of a document's field groups. */
  public static final byte OP_GROUPS = 5;

  /**
   * The least body of a GROUPS record: its kind, its expiry and its section count (a re-projection
   * adds its source sequence).
   */
  public static final int GROUPS_MIN = 10;

  /** Segment version 7: where the records after it came from in the update log. */
  public static final byte OP_SOURCE = 6;

  /**
   * Segment version 8, in a {@link #FLAG_ZSTD_RECORDS} block only: the stored form of a RELOCATED
   * record whose fixed part ({@link #RELOCATED_FIXED} bytes) is stored as it is and whose rest (the
   * original record's body) is stored on its own, as it is or as one zstd frame, so that the space
   * reclamation can copy a record's body as its segment stores it. Readers see {@link
   * #OP_RELOCATED}; no other block layout holds this code.
   */
  public static final byte OP_RELOCATED_SPLIT = 7;

  /** A SOURCE body's least length: partition, next offset, count. */
  public static final int SOURCE_MIN = 16;

  /** The body of a DROPPED record: original sequence and address. */
  public static final int DROPPED_LENGTH = 16;

  /** Bytes before the document in a RELOCATED body: original sequence, address and op. */
  public static final int RELOCATED_FIXED = 17;

  /** Largest stored or raw payload a reader accepts (a record of the largest allowed body fits). */
  public static final int MAX_PAYLOAD = 1 << 28;

  private BlockFormat() {}

  /**
   * Why a record with op code {@code op} and a body of {@code bodyLength} bytes cannot be a record
   * of this format, or null if it can: the code must be known, and the body as long as its kind
   * needs (a DELETE has none, a DROPPED record exactly its original sequence and address, a
   * PUT_EXPIRING at least its expiry, a RELOCATED at least its original sequence, address and op).
   */
  public static String invalidRecord(byte op, int bodyLength) {
    boolean ok =
        switch (op) {
          case OP_PUT -> true;
          case OP_DELETE -> bodyLength == 0;
          case OP_PUT_EXPIRING -> bodyLength >= 8;
          case OP_RELOCATED -> bodyLength >= RELOCATED_FIXED;
          case OP_DROPPED -> bodyLength == DROPPED_LENGTH;
          case OP_GROUPS -> bodyLength >= GROUPS_MIN;
          case OP_SOURCE -> bodyLength >= SOURCE_MIN && (bodyLength - SOURCE_MIN) % 16 == 0;
          default -> false;
        };
    if (ok) {
      return null;
    }
    return op < 0 || op > OP_SOURCE
        ? "unknown op code " + op
        : "op code " + op + " with a body of " + bodyLength + " bytes";
  }

  /**
   * Bytes a record with a body of {@code bodyLength} adds to a block stored uncompressed: its
   * offset entry, its checksum and the record itself. A compressed block stores less.
   */
  public static int storedRecordCost(int bodyLength) {
    return OFFSET_ENTRY + RECORD_CRC + RECORD_BODY + bodyLength;
  }
}
