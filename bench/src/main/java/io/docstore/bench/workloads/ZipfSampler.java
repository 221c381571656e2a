package io.docstore.bench.workloads;

import java.util.SplittableRandom;

/**
 * Ranks 1..n with Zipf-like skew s = 1.0, by inverting the continuous density 1/x on [1, n+1):
 * P(rank = k) = ln((k+1)/k) / ln(n+1), within a few percent of exact Zipf (1/(k H_n)) for every k,
 * with no table (O(1) memory for any n). Not thread-safe (holds its random source).
 */
final class ZipfSampler {

  private final long n;
  private final double logNPlusOne;
  private final SplittableRandom random;

  ZipfSampler(long n, long seed) {
    if (n < 1) {
      throw new IllegalArgumentException("n must be positive");
    }
    this.n = n;
    this.logNPlusOne = Math.log(n + 1.0);
    this.random = new SplittableRandom(seed);
  }

  /** A rank in [1, n]; rank 1 is the most frequent. */
  long next() {
    long rank = (long) Math.exp(random.nextDouble() * logNPlusOne);
    return Math.max(1, Math.min(n, rank));
  }
}
