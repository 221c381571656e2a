package io.docstore.index.bloom;

import io.docstore.index.file.FileHeader;

/**
 * Byte layout of a bloom filter file (little-endian; spec in docs/formats/bloom.md):
 *
 * <pre>
 * file    := header page | page{pageCount} | crcs | trailer
 * header page := header(32, format "IDXBLOOM", version 1, param1 = page bytes, param2 = probes), zero pad to 4096
 * page    := 4096 bytes = 32768 bits; bit b is bit (b &amp; 7) of byte (b &gt;&gt;&gt; 3)
 * crcs    := pageCount x u32, masked CRC32C of each page
 * trailer := pageCount u32 | probes u32 | keys u64 | crc u32 (masked CRC32C of crcs and trailer bytes before it)
 * </pre>
 * A key's probes all fall in one page (a blocked bloom filter), so a resident page answers alone.
 */
public final class BloomFormat {

  public static final String FORMAT = "IDXBLOOM";
  public static final int VERSION = 1;
  public static final int PAGE_SIZE = 4096;
  public static final int PAGE_BITS = PAGE_SIZE * 8;
  public static final int FIRST_PAGE_OFFSET = PAGE_SIZE;
  public static final int HEADER_SIZE = FileHeader.SIZE;

  public static final int T_PAGE_COUNT = 0;
  public static final int T_PROBES = T_PAGE_COUNT + 4;
  public static final int T_KEYS = T_PROBES + 4;
  public static final int T_CRC = T_KEYS + 8;
  public static final int TRAILER_SIZE = T_CRC + 4;

  private BloomFormat() {}

  /** Offset of page {@code p}. */
  public static long pageOffset(int p) {
    return FIRST_PAGE_OFFSET + (long) p * PAGE_SIZE;
  }
}
