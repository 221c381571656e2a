package io.docstore.index.bloom;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.FileSystem;
import io.docstore.io.TestSupport;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under a budget smaller than the filters, the usefulness policy must keep the pages that answer
 * "no" to many requests resident (article Figures 13-14), and so answer "no" far more often than a
 * random choice of resident pages under the same skewed workload.
 */
class BloomPagerTest {

  @TempDir
  Path dir;

  private static final int KEYS = 60_000;

  @Test
  void skewedWorkloadKeepsUsefulPagesResidentAndBeatsRandomResidency() throws Exception {
    long seed = TestSupport.seed("BloomPagerTest");
    Path file = dir.resolve("0000000001.bloom");
    BloomBuilder b = new BloomBuilder(KEYS, 0.01);
    for (long i = 0; i < KEYS; i++) {
      b.add(i * 2);
    }
    b.writeTo(FileSystem.real(), file);
    int pages = b.pageCount();
    assertThat(pages).isGreaterThanOrEqualTo(16);
    int budgetPages = pages / 4;
    double usefulness = noRate(file, budgetPages, BloomPolicy.USEFULNESS, seed);
    double random = noRate(file, budgetPages, BloomPolicy.RANDOM, seed);
    System.out.printf("bloom pager: %d pages, %d resident: \"no\" rate usefulness %.3f vs random %.3f%n",
        pages, budgetPages, usefulness, random);
    assertThat(usefulness).as("seed %d", seed).isGreaterThan(random + 0.25);
    assertThat(usefulness).as("seed %d", seed).isGreaterThan(0.5);
  }

  /** A version-2 block is one cache line only if the slots holding pages start on one. */
  @Test
  void slotsStartOnPageBoundariesSoEveryBlockIsOneCacheLine() {
    try (BloomPager pager = new BloomPager((1L << 14) * BloomFormat.PAGE_SIZE + 3 * BloomFormat.PAGE_SIZE, BloomPolicy.USEFULNESS)) {
      for (int s : new int[] {0, 1, 2, (1 << 14) - 1, 1 << 14, (1 << 14) + 2}) {
        assertThat(pager.slotMisalignment(s, BloomFormat.PAGE_SIZE)).as("slot %d", s).isZero();
      }
    }
  }

  /**
   * Workload: 60% of requests are for absent ids whose pages are a hot eighth of the filter; 30%
   * are for present ids (never "no") on another hot eighth; 10% uniform absent ids. The ideal
   * residency holds the first eighth: those pages are requested often and nearly always say "no".
   */
  private static double noRate(Path file, int budgetPages, BloomPolicy policy, long seed) throws Exception {
    SplittableRandom rnd = new SplittableRandom(seed);
    try (BloomPager pager = new BloomPager((long) budgetPages * BloomFormat.PAGE_SIZE, policy);
         BloomFilter f = BloomFilter.open(FileSystem.real(), file, pager)) {
      int pages = f.pageCount();
      List<Long> hotAbsent = new ArrayList<>();
      List<Long> hotPresent = new ArrayList<>();
      while (hotAbsent.size() < 2000 || hotPresent.size() < 2000) {
        long id = rnd.nextLong(2L * KEYS);
        int page = Hashing.page(Hashing.mix64(id), pages);
        if (id % 2 == 1 && page < pages / 8 && hotAbsent.size() < 2000) {
          hotAbsent.add(id);
        } else if (id % 2 == 0 && page >= pages / 2 && page < pages / 2 + pages / 8 && hotPresent.size() < 2000) {
          hotPresent.add(id);
        }
      }
      long no = 0;
      long asked = 0;
      for (int round = 0; round < 30; round++) {
        for (int i = 0; i < 20_000; i++) {
          int kind = rnd.nextInt(10);
          long id = kind < 6 ? hotAbsent.get(rnd.nextInt(hotAbsent.size()))
              : kind < 9 ? hotPresent.get(rnd.nextInt(hotPresent.size())) : rnd.nextLong(KEYS) * 2 + 1;
          int a = f.query(id);
          if (round >= 10) {
            asked++;
            if (a == BloomFilter.NO) {
              no++;
            }
          }
        }
        pager.rebalance();
      }
      return no / (double) asked;
    }
  }
}
