package io.docstore.index.bloom;

/**
 * The hash functions bloom pages are built and probed with. Part of the bloom format: changing them
 * changes format version 1.
 */
public final class Hashing {

  private Hashing() {}

  /** A 64-bit finalizer (MurmurHash3 fmix64 constants): every input bit affects every output bit. */
  public static long mix64(long z) {
    z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
    z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
    return z ^ (z >>> 33);
  }

  /** The page of a key with hash {@code h} among {@code pageCount} pages (multiply-shift, unbiased enough). */
  public static int page(long h, int pageCount) {
    return (int) (((h >>> 32) * pageCount) >>> 32);
  }

  /** The second hash, whose halves drive the probes inside a page (double hashing). */
  public static long probeHash(long h) {
    return mix64(h + 0x9E3779B97F4A7C15L);
  }

  /** Bit index of probe {@code i} inside a page. */
  public static int bit(long g, int i) {
    int b1 = (int) g;
    int b2 = (int) (g >>> 32) | 1;
    return (b1 + i * b2) & (BloomFormat.PAGE_BITS - 1);
  }

  /** Bits per key for a target false-positive rate (optimal bloom sizing). */
  public static double bitsPerKey(double fpRate) {
    return -Math.log(fpRate) / (Math.log(2) * Math.log(2));
  }

  /** Probe count for a bits-per-key (k = m/n ln 2), clamped to 1..16. */
  public static int probes(double bitsPerKey) {
    return (int) Math.max(1, Math.min(16, Math.round(bitsPerKey * Math.log(2))));
  }
}
