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
 * (layout in {@link BloomFormat}). Sized up front from an upper bound of the key count by {@link
 * BloomSizing}; a merge that collapses duplicates only lowers the false-positive rate.
 * Single-threaded.
 *
 * <p>The index writes {@link BloomFormat#VERSION}. Version 1 can still be written through {@link
 * #BloomBuilder(int, long, double)}, only so that tests and the probe benchmark can prove this
 * build still reads it and compare the two.
 */
public final class BloomBuilder {

  private final int version;
  private final int pageCount;
  private final int probes;
  private final ByteBuffer bits;
  private long keys;

  /** A builder of the current format version, {@link BloomFormat#VERSION}. */
  public BloomBuilder(long expectedKeys, double fpRate) {
    this(BloomFormat.VERSION, expectedKeys, fpRate);
  }

  /**
   * A builder of format {@code version} (1 or 2), sized for {@code expectedKeys} at {@code fpRate}.
   */
  public BloomBuilder(int version, long expectedKeys, double fpRate) {
    if (version < BloomFormat.MIN_VERSION || version > BloomFormat.VERSION) {
      throw new IllegalArgumentException("cannot write bloom format version " + version);
    }
    BloomSizing.Sizing sizing = BloomSizing.forVersion(version, fpRate);
    long pages =
        Math.max(
            1,
            (long)
                Math.ceil(Math.max(1, expectedKeys) * sizing.bitsPerKey() / BloomFormat.PAGE_BITS));
    if (pages > Integer.MAX_VALUE / BloomFormat.PAGE_SIZE) {
      throw new IllegalArgumentException("bloom filter for " + expectedKeys + " keys is too large");
    }
    this.version = version;
    this.pageCount = (int) pages;
    this.probes = sizing.probes();
    this.bits = ByteBuffer.allocateDirect(pageCount * BloomFormat.PAGE_SIZE);
  }

  public void add(long id) {
    long h = Hashing.mix64(id);
    int base = Hashing.page(h, pageCount) * BloomFormat.PAGE_SIZE;
    long g = Hashing.probeHash(h);
    if (version == 1) {
      for (int i = 0; i < probes; i++) {
        set(base, Hashing.bit(g, i));
      }
    } else {
      int block = base + Hashing.block(g) * BloomFormat.BLOCK_SIZE;
      long state = g;
      for (int i = 0; i < probes; i++) {
        state = Hashing.nextProbe(state);
        set(block, Hashing.blockBit(state));
      }
    }
    keys++;
  }

  private void set(int base, int b) {
    int at = base + (b >>> 3);
    bits.put(at, (byte) (bits.get(at) | (1 << (b & 7))));
  }

  public int version() {
    return version;
  }

  public int pageCount() {
    return pageCount;
  }

  public int probes() {
    return probes;
  }

  /**
   * Writes the filter to a new file and forces it; the caller syncs the directory. Returns bytes
   * written.
   */
  public long writeTo(FileSystem fs, Path path) throws IOException {
    ByteBuffer head = ByteBuffer.allocate(BloomFormat.PAGE_SIZE).order(ByteOrder.LITTLE_ENDIAN);
    FileHeader.write(head, BloomFormat.FORMAT, version, BloomFormat.PAGE_SIZE, probes);
    head.clear();
    ByteBuffer tail =
        ByteBuffer.allocate(pageCount * 4 + BloomFormat.TRAILER_SIZE)
            .order(ByteOrder.LITTLE_ENDIAN);
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
