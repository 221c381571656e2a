package io.docstore.bench.workloads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class ZipfSamplerTest {

  @Test
  void frequenciesFollowOneOverRank() {
    int n = 1000;
    ZipfSampler z = new ZipfSampler(n, 3);
    long[] counts = new long[n + 1];
    int samples = 1_000_000;
    for (int i = 0; i < samples; i++) {
      long r = z.next();
      assertThat(r).isBetween(1L, (long) n);
      counts[(int) r]++;
    }
    double logN = Math.log(n + 1.0);
    for (int k : new int[] {1, 2, 10}) {
      double expected = Math.log((k + 1.0) / k) / logN;
      assertThat(counts[k] / (double) samples).isCloseTo(expected, within(expected * 0.05));
    }
    // Zipf s = 1: rank 1 is about twice as frequent as rank 2 (here ln2/ln1.5 = 1.71).
    assertThat(counts[1] / (double) counts[2]).isBetween(1.6, 1.85);
  }
}
