package io.docstore.index.bloom;

import io.docstore.index.file.FileHeader;

/**
 * Byte layout of a bloom filter file (little-endian; spec in docs/formats/bloom.md):
 *
 * <pre>
 * file    := header page | page{pageCount} | crcs | trailer
 * header page := header(32, format "IDXBLOOM", version 1 or 2, param1 = page bytes, param2 = probes), zero pad to 4096
 * page    := 4096 bytes = 32768 bits; bit b is bit (b &amp; 7) of byte (b &gt;&gt;&gt; 3)
 *            version 2: 64 blocks of 64 bytes = 512 bits; block j is bytes 64j..64j+63 of the page
 * crcs    := pageCount x u32, masked CRC32C of each page
 * trailer := pageCount u32 | probes u32 | keys u64 | crc u32 (masked CRC32C of crcs and trailer bytes before it)
 * </pre>
 *
 * A key's probes all fall in one page (a blocked bloom filter), so a resident page answers alone.
 * In version 2 they also fall in one 64-byte block of that page, so a probe touches one cache line
 * (probing in {@link Hashing}). The two versions differ only in where a key's bits are; the bytes
 * around the pages are the same. This build writes {@link #VERSION} and reads {@link #MIN_VERSION}
 * to {@link #VERSION}; a build that reads only version 1 refuses a version-2 file as too new.
 */
public final class BloomFormat {

  public static final String FORMAT = "IDXBLOOM";

  /** The version this build writes: every probe of a key in one 64-byte block. */
  public static final int VERSION = 2;

  /** The oldest version this build reads: probes anywhere in the page. */
  public static final int MIN_VERSION = 1;

  public static final int PAGE_SIZE = 4096;
  public static final int PAGE_BITS = PAGE_SIZE * 8;

  /** Version 2: the bytes of the block all of a key's probes fall in (one cache line). */
  public static final int BLOCK_SIZE = 64;

  public static final int BLOCK_BITS = BLOCK_SIZE * 8;

  /** Version 2: log2 of the blocks per page. */
  public static final int BLOCK_INDEX_BITS = Integer.numberOfTrailingZeros(PAGE_SIZE / BLOCK_SIZE);

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
