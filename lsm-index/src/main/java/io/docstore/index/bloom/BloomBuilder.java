package io.docstore.index.bloom;

import io.docstore.index.file.FileHeader;
import io.docstore.io.Checksums;
import io.docstore.io.FileSystem;
import io.docstore.io.WritableFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;

/**
 * Builds one bloom filter in memory (off-heap) while a table is written, then writes the file
 * (layout in {@link BloomFormat}). Sized up front from an upper bound of the key count; a merge
 * that collapses duplicates only lowers the false-positive rate. Single-threaded.
 */
public final class BloomBuilder {

  private final int pageCount;
  private final int probes;
  private final ByteBuffer bits;
  private long keys;

  public BloomBuilder(long expectedKeys, double fpRate) {
    double bpk = Hashing.bitsPerKey(fpRate);
    long pages = Math.max(1, (long) Math.ceil(Math.max(1, expectedKeys) * bpk / BloomFormat.PAGE_BITS));
    if (pages > Integer.MAX_VALUE / BloomFormat.PAGE_SIZE) {
      throw new IllegalArgumentException("bloom filter for " + expectedKeys + " keys is too large");
    }
    this.pageCount = (int) pages;
    this.probes = Hashing.probes(bpk);
    this.bits = ByteBuffer.allocateDirect(pageCount * BloomFormat.PAGE_SIZE);
  }

  public void add(long id) {
    long h = Hashing.mix64(id);
    int base = Hashing.page(h, pageCount) * BloomFormat.PAGE_SIZE;
    long g = Hashing.probeHash(h);
    for (int i = 0; i < probes; i++) {
      int b = Hashing.bit(g, i);
      int at = base + (b >>> 3);
      bits.put(at, (byte) (bits.get(at) | (1 << (b & 7))));
    }
    keys++;
  }

  public int pageCount() {
    return pageCount;
  }

  /** Writes the filter to a new file and forces it; the caller syncs the directory. Returns bytes written. */
  public long writeTo(FileSystem fs, Path path) throws IOException {
    ByteBuffer head = ByteBuffer.allocate(BloomFormat.PAGE_SIZE).order(ByteOrder.LITTLE_ENDIAN);
    FileHeader.write(head, BloomFormat.FORMAT, BloomFormat.VERSION, BloomFormat.PAGE_SIZE, probes);
    head.clear();
    ByteBuffer tail = ByteBuffer.allocate(pageCount * 4 + BloomFormat.TRAILER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
    for (int p = 0; p < pageCount; p++) {
      tail.putInt(Checksums.crc32c(bits, p * BloomFormat.PAGE_SIZE, BloomFormat.PAGE_SIZE));
    }
    tail.putInt(pageCount).putInt(probes).putLong(keys);
    tail.putInt(Checksums.crc32c(tail, 0, tail.position()));
    tail.flip();
    try (WritableFile f = fs.create(path)) {
      f.write(head);
      f.write(bits.duplicate().clear());
      f.write(tail);
      f.force();
      return f.position();
    }
  }
}
