package io.docstore.index.manifest;

import io.docstore.index.file.FileHeader;

/**
 * Byte layout of the {@code MANIFEST} file (little-endian; spec in docs/formats/index-manifest.md):
 *
 * <pre>
 * file  := header(32, format "IDXMANIF", version 1) | nextFileNumber u64 | minLiveWal u64
 *          | tableCount u32 | table{tableCount} | crc u32
 * table := fileNumber u64 | entryCount u64        (newest first)
 * crc   := masked CRC32C of every byte before it, header included
 * </pre>
 */
public final class ManifestFormat {

  public static final String FORMAT = "IDXMANIF";
  public static final int VERSION = 1;
  public static final int NEXT_FILE_OFFSET = FileHeader.SIZE;
  public static final int MIN_LIVE_WAL_OFFSET = NEXT_FILE_OFFSET + 8;
  public static final int TABLE_COUNT_OFFSET = MIN_LIVE_WAL_OFFSET + 8;
  public static final int TABLES_OFFSET = TABLE_COUNT_OFFSET + 4;
  public static final int TABLE_ENTRY_SIZE = 16;
  public static final int CRC_SIZE = 4;

  private ManifestFormat() {}
}
