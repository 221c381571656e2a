package io.docstore.index.bloom;

/**
 * Bits per key and probe count for a target false-positive rate, per format version. Not part of
 * the file format (each file records its page count and probe count), but it decides how large the
 * files are and so is fixed by the golden files of {@code GoldenFormatTest}.
 *
 * <p>Version 1 uses the formulas of a standard bloom filter: a key's probes spread over a
 * 32,768-bit page hold about 3,400 keys, close enough to one large filter.
 *
 * <p>Version 2 confines a key's probes to one 512-bit block, which holds only about 50 keys, and
 * the number of keys per block varies (Poisson): the crowded blocks lose more than the sparse ones
 * gain, so the same bits give a higher rate (1.16% measured instead of 1.00% at 9.6 bits per key
 * and a 1% target). Sizing therefore uses the blocked filter's rate (Putze, Sanders and Singler,
 * "Cache-, Hash- and Space-Efficient Bloom Filters", 2007): the rate of a 512-bit filter holding
 * {@code j} keys of {@code k} probes each (counted as distinct bits), averaged over the Poisson
 * distribution of {@code j} with mean {@code 512 / bitsPerKey}. The bits per key is the smallest
 * multiple of 1/16 at which the best {@code k} brings that rate down to {@link #V2_DESIGN_FRACTION}
 * of the target: 10.25 bits and k = 7 at 1%, 8.625 and k = 6 at 2%. Computed with {@link
 * StrictMath} so that every machine sizes a filter alike.
 */
public final class BloomSizing {

  /**
   * Version 2 designs for this fraction of the target, leaving room for one filter's luck and for
   * the model's approximations, so that a measured rate stays at or below the target: measured
   * rates land 11-14% under it (docs/formats/bloom.md, "Sizing").
   */
  public static final double V2_DESIGN_FRACTION = 0.9;

  private static final double STEP = 1.0 / 16;
  private static final double MAX_BITS_PER_KEY = 64;
  private static final int MAX_PROBES = 16;

  /** Bits per key and probes per key of one filter. */
  public record Sizing(double bitsPerKey, int probes) {}

  private BloomSizing() {}

  /** The sizing of format {@code version} for target rate {@code fpRate} in (0, 1). */
  public static Sizing forVersion(int version, double fpRate) {
    if (!(fpRate > 0 && fpRate < 1)) {
      throw new IllegalArgumentException("false-positive rate must be in (0, 1), got " + fpRate);
    }
    return switch (version) {
      case 1 -> {
        double bpk = standardBitsPerKey(fpRate);
        yield new Sizing(
            bpk, (int) Math.max(1, Math.min(MAX_PROBES, Math.round(bpk * Math.log(2)))));
      }
      case 2 -> blocked(fpRate);
      default -> throw new IllegalArgumentException("no bloom format version " + version);
    };
  }

  /** Version 1: optimal bits per key of a standard bloom filter, -ln p / (ln 2)^2 (9.59 at 1%). */
  private static double standardBitsPerKey(double fpRate) {
    return -Math.log(fpRate) / (Math.log(2) * Math.log(2));
  }

  private static Sizing blocked(double fpRate) {
    double goal = fpRate * V2_DESIGN_FRACTION;
    // Start below the answer: a blocked filter never needs fewer bits than a standard one.
    double ln2 = StrictMath.log(2);
    double bpk = Math.floor(-StrictMath.log(goal) / (ln2 * ln2) / STEP) * STEP;
    while (true) {
      int bestK = 1;
      double best = blockedFpRate(bpk, 1);
      for (int k = 2; k <= MAX_PROBES; k++) {
        double r = blockedFpRate(bpk, k);
        if (r < best) {
          best = r;
          bestK = k;
        }
      }
      if (best <= goal || bpk >= MAX_BITS_PER_KEY) {
        return new Sizing(bpk, bestK);
      }
      bpk += STEP;
    }
  }

  /**
   * The expected false-positive rate of a filter whose keys' {@code k} probes are distinct bits of
   * one 512-bit block chosen at random, at {@code bitsPerKey} bits per key (the version 2 model).
   */
  public static double blockedFpRate(double bitsPerKey, int k) {
    int bits = BloomFormat.BLOCK_BITS;
    double mean = bits / bitsPerKey;
    double unsetPerKey = 1.0 - (double) k / bits;
    // Poisson terms built up by ratio, started in logs so a large mean cannot underflow exp(-mean).
    double sum = 0;
    double logTerm = -mean;
    int last = (int) Math.ceil(mean + 12 * Math.sqrt(mean) + 12);
    for (int j = 0; j <= last; j++) {
      if (j > 0) {
        logTerm += StrictMath.log(mean / j);
      }
      double fill = 1.0 - StrictMath.pow(unsetPerKey, j);
      sum += StrictMath.exp(logTerm) * StrictMath.pow(fill, k);
    }
    return sum;
  }
}
