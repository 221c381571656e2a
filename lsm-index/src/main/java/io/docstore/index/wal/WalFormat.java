package io.docstore.index.wal;

import io.docstore.index.file.FileHeader;

/**
 * Byte layout of a write-ahead log file (little-endian; spec in docs/formats/wal.md):
 *
 * <pre>
 * file   := header(32, format "IDXWAL", version 2) (record | mark)*
 * record := crc u32 | count u32 (1..4096) | count x (id i64 | value i64)
 * mark   := crc u32 | count u32 = 0 | syncedEnd u64                       -- version 2 only
 * </pre>
 *
 * {@code crc} is the masked CRC32C of the bytes after it (count and entries, or count and {@code
 * syncedEnd}). {@code value} is a value {@code >= 0} or -2 for a tombstone. A sync mark says that
 * every byte of the file before {@code syncedEnd} had been fsynced when the mark was written.
 * Records and marks are multiples of 8 bytes long, so every one starts at an offset divisible by 8.
 * Version 1 files have no marks (a count of 0 is impossible there); this build reads both versions
 * and writes version 2.
 */
public final class WalFormat {

  public static final String FORMAT = "IDXWAL";

  /** The version this build writes. */
  public static final int VERSION = 2;

  /** The oldest version this build reads. */
  public static final int MIN_VERSION = 1;

  /** The first version with sync marks. */
  public static final int MARK_VERSION = 2;

  public static final int CRC_OFFSET = 0;
  public static final int COUNT_OFFSET = CRC_OFFSET + 4;
  public static final int ENTRIES_OFFSET = COUNT_OFFSET + 4;
  public static final int RECORD_HEADER = ENTRIES_OFFSET;
  public static final int ENTRY_ID_OFFSET = 0;
  public static final int ENTRY_VALUE_OFFSET = ENTRY_ID_OFFSET + 8;
  public static final int ENTRY_SIZE = ENTRY_VALUE_OFFSET + 8;
  public static final int MAX_COUNT = 4096;
  public static final int HEADER_SIZE = FileHeader.SIZE;

  /** The count field of a sync mark. */
  public static final int MARK_COUNT = 0;

  public static final int MARK_SYNCED_END_OFFSET = COUNT_OFFSET + 4;
  public static final int MARK_SIZE = MARK_SYNCED_END_OFFSET + 8;

  /** Every record and mark starts at a multiple of this (header and lengths are multiples). */
  public static final int ALIGNMENT = 8;

  private WalFormat() {}
}
