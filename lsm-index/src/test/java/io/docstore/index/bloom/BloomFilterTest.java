package io.docstore.index.bloom;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.FileSystem;
import io.docstore.io.TestSupport;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BloomFilterTest {

  @TempDir
  Path dir;

  @Test
  void noFalseNegativesAndFalsePositiveRateWithinOneAndAHalfTimesTarget() throws Exception {
    long seed = TestSupport.seed("BloomFilterTest");
    SplittableRandom rnd = new SplittableRandom(seed);
    for (double target : new double[] {0.01, 0.02}) {
      int n = 100_000 + rnd.nextInt(100_000);
      Set<Long> keys = new HashSet<>();
      BloomBuilder b = new BloomBuilder(n, target);
      while (keys.size() < n) {
        long id = rnd.nextLong() & Long.MAX_VALUE;
        if (keys.add(id)) {
          b.add(id);
        }
      }
      Path file = dir.resolve("f" + target + ".bloom");
      b.writeTo(FileSystem.real(), file);
      try (BloomPager pager = new BloomPager(64L << 20, BloomPolicy.USEFULNESS);
           BloomFilter f = BloomFilter.open(FileSystem.real(), file, pager)) {
        assertThat(pager.residentBytes()).isEqualTo((long) f.pageCount() * BloomFormat.PAGE_SIZE);
        for (long id : keys) {
          assertThat(f.query(id)).as("false negative for %d (seed %d)", id, seed).isEqualTo(BloomFilter.MAYBE);
        }
        int trials = 400_000;
        int fp = 0;
        for (int i = 0; i < trials; i++) {
          long id = rnd.nextLong() & Long.MAX_VALUE;
          if (!keys.contains(id) && f.query(id) == BloomFilter.MAYBE) {
            fp++;
          }
        }
        double rate = fp / (double) trials;
        System.out.printf("bloom target %.3f measured %.4f (%d keys, %d pages, %d probes)%n", target, rate, n,
            f.pageCount(), f.probes());
        assertThat(rate).as("false-positive rate for target %s (seed %d)", target, seed).isLessThan(target * 1.5);
      }
    }
  }

  @Test
  void withoutBudgetEveryAnswerIsNotResident() throws Exception {
    BloomBuilder b = new BloomBuilder(1000, 0.01);
    for (long i = 0; i < 1000; i++) {
      b.add(i);
    }
    Path file = dir.resolve("x.bloom");
    b.writeTo(FileSystem.real(), file);
    try (BloomPager pager = new BloomPager(0, BloomPolicy.USEFULNESS);
         BloomFilter f = BloomFilter.open(FileSystem.real(), file, pager)) {
      pager.rebalance();
      for (long i = 0; i < 2000; i++) {
        assertThat(f.query(i)).isEqualTo(BloomFilter.NOT_RESIDENT);
      }
    }
  }
}
