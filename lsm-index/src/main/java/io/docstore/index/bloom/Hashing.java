package io.docstore.index.bloom;

/**
 * The hash functions bloom pages are built and probed with. Part of the bloom format: changing any
 * of them changes the bits of both format versions (docs/formats/bloom.md, "Probing").
 *
 * <p>Every version picks the page from {@code h = mix64(id)} and derives the probes from a second
 * hash {@code g = probeHash(h)}. Version 1 spreads the probes over the whole 32,768-bit page
 * ({@link #bit}); version 2 first picks one 512-bit block of the page from the top six bits of
 * {@code g} ({@link #block}) and takes every probe inside it from the top nine bits of a
 * multiplicative sequence started at {@code g} ({@link #nextProbe}, {@link #blockBit}).
 */
public final class Hashing {

  /** Version 2: the multiplier that steps the probe state (odd, so each step is a bijection). */
  public static final long PROBE_MULTIPLIER = 0x9E3779B97F4A7C15L;

  /** Version 2: a probe is the top log2(512) = 9 bits of its state. */
  private static final int BIT_IN_BLOCK_SHIFT =
      64 - Integer.numberOfTrailingZeros(BloomFormat.BLOCK_BITS);

  private Hashing() {}

  /**
   * A 64-bit finalizer (MurmurHash3 fmix64 constants): every input bit affects every output bit.
   */
  public static long mix64(long z) {
    z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
    z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
    return z ^ (z >>> 33);
  }

  /**
   * The page of a key with hash {@code h} among {@code pageCount} pages (multiply-shift, unbiased
   * enough).
   */
  public static int page(long h, int pageCount) {
    return (int) (((h >>> 32) * pageCount) >>> 32);
  }

  /** The second hash, whose bits drive the probes inside a page (double hashing). */
  public static long probeHash(long h) {
    return mix64(h + 0x9E3779B97F4A7C15L);
  }

  /**
   * Version 1: bit index of probe {@code i} inside a page (0..32767), by double hashing: the low
   * half of {@code g} is the start, the high half made odd the stride (so a key's probes are
   * distinct bits).
   */
  public static int bit(long g, int i) {
    return ((int) g + i * ((int) (g >>> 32) | 1)) & (BloomFormat.PAGE_BITS - 1);
  }

  /**
   * Version 2: the 64-byte block of its page a key's probes fall in (0..63): the top six bits of
   * {@code g}.
   */
  public static int block(long g) {
    return (int) (g >>> (64 - BloomFormat.BLOCK_INDEX_BITS));
  }

  /**
   * Version 2: the probe state of the next probe. The state of probe 0 is {@code nextProbe(g)}, of
   * probe {@code i} {@code g x PROBE_MULTIPLIER^(i+1)} (mod 2^64). Double hashing is not used here:
   * in a 512-bit block it has only 2^17 probe patterns, and keys sharing a stride share bits, which
   * measured 15% (at 1%) to 125% (at 0.1%) above the rate of independent probes.
   */
  public static long nextProbe(long state) {
    return state * PROBE_MULTIPLIER;
  }

  /**
   * Version 2: the bit inside its block (0..511) of the probe with state {@code state}: its top
   * nine bits.
   */
  public static int blockBit(long state) {
    return (int) (state >>> BIT_IN_BLOCK_SHIFT);
  }
}
