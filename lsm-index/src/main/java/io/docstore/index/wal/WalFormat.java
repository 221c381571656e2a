package io.docstore.index.wal;

import io.docstore.index.file.FileHeader;

/**
 * Byte layout of a write-ahead log file (little-endian; spec in docs/formats/wal.md):
 *
 * <pre>
 * file   := header(32, format "IDXWAL", version 1) record*
 * record := crc u32 | count u32 | count x (id i64 | value i64)
 * </pre>
 *
 * {@code crc} is the masked CRC32C of the count and entry bytes. {@code value} is a value {@code >=
 * 0} or -2 for a tombstone. {@code count} is 1..{@link #MAX_COUNT}.
 */
public final class WalFormat {

  public static final String FORMAT = "IDXWAL";
  public static final int VERSION = 1;

  public static final int CRC_OFFSET = 0;
  public static final int COUNT_OFFSET = CRC_OFFSET + 4;
  public static final int ENTRIES_OFFSET = COUNT_OFFSET + 4;
  public static final int RECORD_HEADER = ENTRIES_OFFSET;
  public static final int ENTRY_ID_OFFSET = 0;
  public static final int ENTRY_VALUE_OFFSET = ENTRY_ID_OFFSET + 8;
  public static final int ENTRY_SIZE = ENTRY_VALUE_OFFSET + 8;
  public static final int MAX_COUNT = 4096;
  public static final int HEADER_SIZE = FileHeader.SIZE;

  private WalFormat() {}
}
