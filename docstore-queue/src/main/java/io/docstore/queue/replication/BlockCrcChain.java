package io.docstore.queue.replication;

import io.docstore.io.Checksums;

/**
 * The chained checksum that names a prefix of a segment: {@code chain(0) = 0} and {@code chain(i) =
 * crc32c(be32(chain(i-1)) || be32(crc of block i))} (masked). Each block's crc covers its bytes, so
 * equal chains mean equal prefixes, block for block, in order. Unlike the footer's running digest
 * it resumes from its last value alone, so a replica can persist it with its ingestion point and go
 * on after a restart without re-reading the segment.
 *
 * <p>Pure function; thread-safe.
 */
public final class BlockCrcChain {

  public static final int START = 0;

  private BlockCrcChain() {}

  public static int next(int chain, int blockCrc) {
    byte[] b = {
      (byte) (chain >>> 24), (byte) (chain >>> 16), (byte) (chain >>> 8), (byte) chain,
      (byte) (blockCrc >>> 24), (byte) (blockCrc >>> 16), (byte) (blockCrc >>> 8), (byte) blockCrc
    };
    return Checksums.crc32c(b, 0, b.length);
  }
}
