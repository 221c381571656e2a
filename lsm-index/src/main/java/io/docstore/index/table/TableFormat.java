package io.docstore.index.table;

import io.docstore.index.file.FileHeader;

/**
 * Byte layout of an on-disk index table (little-endian; spec in docs/formats/index-table.md):
 *
 * <pre>
 * file        := header page | data page{pageCount} | index block | trailer
 * header page := header(32, format "IDXTABLE", version 1, param1 = 4096, param2 = 16), zero pad to 4096
 * data page   := 256 x entry (the last page zero padded), ids strictly ascending across the file
 * entry       := id i64 | value i64            (value -2 = tombstone)
 * index block := fence i64{pageCount} (first id of each page) | page crc u32{pageCount}
 * trailer     := indexOffset u64 | pageCount u32 | reserved u32 | entryCount u64 | minId i64 | maxId i64
 *                | tombstones u64 | crc u32 (masked CRC32C of index block and trailer bytes before it)
 * </pre>
 *
 * Data pages are 4 KiB aligned, so a lookup touches exactly one 4 KiB page of the file.
 */
public final class TableFormat {

  public static final String FORMAT = "IDXTABLE";
  public static final int VERSION = 1;
  public static final int PAGE_SIZE = 4096;
  public static final int ENTRY_SIZE = 16;
  public static final int ENTRIES_PER_PAGE = PAGE_SIZE / ENTRY_SIZE;
  public static final int FIRST_PAGE_OFFSET = PAGE_SIZE;
  public static final int HEADER_SIZE = FileHeader.SIZE;

  public static final int T_INDEX_OFFSET = 0;
  public static final int T_PAGE_COUNT = T_INDEX_OFFSET + 8;
  public static final int T_RESERVED = T_PAGE_COUNT + 4;
  public static final int T_ENTRY_COUNT = T_RESERVED + 4;
  public static final int T_MIN_ID = T_ENTRY_COUNT + 8;
  public static final int T_MAX_ID = T_MIN_ID + 8;
  public static final int T_TOMBSTONES = T_MAX_ID + 8;
  public static final int T_CRC = T_TOMBSTONES + 8;
  public static final int TRAILER_SIZE = T_CRC + 4;

  public static final long TOMBSTONE = -2L;

  private TableFormat() {}

  public static long pageOffset(long page) {
    return FIRST_PAGE_OFFSET + page * PAGE_SIZE;
  }
}
