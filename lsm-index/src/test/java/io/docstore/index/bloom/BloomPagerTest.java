package io.docstore.index.bloom;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.FileSystem;
import io.docstore.io.TestSupport;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The usefulness policy (article Figures 13-14): under a budget smaller than the filters, the pager
 * must move into memory the pages that answer "no" to many requests, whichever pages happen to be
 * resident, rank them by those answers and not by requests alone, remember what an evicted page
 * taught it, and so answer "no" far more often than a random choice of resident pages.
 */
class BloomPagerTest {

  @TempDir Path dir;

  private static final int KEYS = 60_000;

  /** Keys of a filter of the small tests: 24,000 x 10.25 bits at 1% fill 8 pages. */
  private static final int SMALL_KEYS = 24_000;

  /**
   * Workload: 60% of requests are for absent ids whose pages are the last eighth of the filter; 30%
   * are for present ids (never "no") on another eighth; 10% uniform absent ids. The first quarter
   * of the pages is resident at the start, so the pager has to load the useful ones.
   */
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
    System.out.printf(
        "bloom pager: %d pages, %d resident: \"no\" rate usefulness %.3f vs random %.3f%n",
        pages, budgetPages, usefulness, random);
    assertThat(usefulness).as("seed %d", seed).isGreaterThan(random + 0.25);
    assertThat(usefulness).as("seed %d", seed).isGreaterThan(0.5);
  }

  /**
   * Three filters share a budget of four pages, and the first one opened fills it. 60% of requests
   * are for ids present in that filter, on its four resident pages, which never answer "no"; 40%
   * are for absent ids on two pages of each other filter, which nearly always do. The resident
   * pages are asked more often (15% of requests each against 10%), so a pager that never
   * rebalances, or ranks by requests alone, keeps them; ranking by usefulness must replace them
   * with the four pages that answer "no".
   */
  @Test
  void pagesThatSayNoTakeTheSharedBudgetFromHotterPagesThatNeverDo() throws Exception {
    long seed = TestSupport.seed("BloomPagerTest");
    SplittableRandom rnd = new SplittableRandom(seed);
    Path fa = writeSmallFilter("0000000001.bloom", 0);
    Path fb = writeSmallFilter("0000000002.bloom", 1);
    Path fc = writeSmallFilter("0000000003.bloom", 2);
    try (BloomPager pager = new BloomPager(4L * BloomFormat.PAGE_SIZE, BloomPolicy.USEFULNESS);
        BloomFilter a = BloomFilter.open(FileSystem.real(), fa, pager);
        BloomFilter b = BloomFilter.open(FileSystem.real(), fb, pager);
        BloomFilter c = BloomFilter.open(FileSystem.real(), fc, pager)) {
      assertThat(resident(a)).containsExactly(0, 1, 2, 3);
      assertThat(resident(b)).isEmpty();
      assertThat(resident(c)).isEmpty();
      long[] presentInA = ids(a, 0, p -> p < 4, rnd);
      long[] absentFromB = ids(b, 3, p -> p == 2 || p == 5, rnd);
      long[] absentFromC = ids(c, 3, p -> p == 4 || p == 7, rnd);
      for (int round = 0; round < 5; round++) {
        for (int i = 0; i < 10_000; i++) {
          int kind = rnd.nextInt(10);
          if (kind < 6) {
            a.query(presentInA[rnd.nextInt(presentInA.length)]);
          } else if (kind < 8) {
            b.query(absentFromB[rnd.nextInt(absentFromB.length)]);
          } else {
            c.query(absentFromC[rnd.nextInt(absentFromC.length)]);
          }
        }
        pager.rebalance();
      }
      assertThat(resident(a)).as("hot pages that never say no (seed %d)", seed).isEmpty();
      assertThat(resident(b)).as("seed %d", seed).containsExactly(2, 5);
      assertThat(resident(c)).as("seed %d", seed).containsExactly(4, 7);
    }
  }

  /**
   * A page asked far more often than any other (70% of requests, for ids present in the table) but
   * never answering "no" is evicted once the pager has seen its answers, for two pages asked 15%
   * each for absent ids. While the workload holds it must stay out and the pager must settle: no
   * page loaded or evicted. A pager that forgot what the page taught while resident would let its
   * request count alone bring it back every dozen rounds or so, to be learnt and evicted again.
   */
  @Test
  void aHotPageThatNeverSaysNoStaysOutOnceEvicted() throws Exception {
    long seed = TestSupport.seed("BloomPagerTest");
    SplittableRandom rnd = new SplittableRandom(seed);
    Path file = writeSmallFilter("0000000001.bloom", 0);
    try (BloomPager pager = new BloomPager(2L * BloomFormat.PAGE_SIZE, BloomPolicy.USEFULNESS);
        BloomFilter f = BloomFilter.open(FileSystem.real(), file, pager)) {
      assertThat(resident(f)).containsExactly(0, 1);
      long[] present = ids(f, 0, p -> p == 0, rnd);
      long[] absent = ids(f, 3, p -> p == 5 || p == 6, rnd);
      long loads = 0;
      long evictions = 0;
      for (int round = 0; round < 40; round++) {
        for (int i = 0; i < 5_000; i++) {
          f.query(
              rnd.nextInt(10) < 7
                  ? present[rnd.nextInt(present.length)]
                  : absent[rnd.nextInt(absent.length)]);
        }
        pager.rebalance();
        if (round == 1) {
          assertThat(resident(f)).as("seed %d", seed).containsExactly(5, 6);
          loads = pager.loads();
          evictions = pager.evictions();
        } else if (round > 1) {
          assertThat(resident(f)).as("round %d (seed %d)", round, seed).containsExactly(5, 6);
        }
      }
      assertThat(pager.loads())
          .as("pages loaded after the pager settled (seed %d)", seed)
          .isEqualTo(loads);
      assertThat(pager.evictions())
          .as("pages evicted after the pager settled (seed %d)", seed)
          .isEqualTo(evictions);
    }
  }

  /** A version-2 block is one cache line only if the slots holding pages start on one. */
  @Test
  void slotsStartOnPageBoundariesSoEveryBlockIsOneCacheLine() {
    try (BloomPager pager =
        new BloomPager(
            (1L << 14) * BloomFormat.PAGE_SIZE + 3 * BloomFormat.PAGE_SIZE,
            BloomPolicy.USEFULNESS)) {
      for (int s : new int[] {0, 1, 2, (1 << 14) - 1, 1 << 14, (1 << 14) + 2}) {
        assertThat(pager.slotMisalignment(s, BloomFormat.PAGE_SIZE)).as("slot %d", s).isZero();
      }
    }
  }

  /** Writes a filter of 8 pages holding the ids {@code 4i + residue}, i < {@link #SMALL_KEYS}. */
  private Path writeSmallFilter(String name, int residue) throws Exception {
    Path file = dir.resolve(name);
    BloomBuilder b = new BloomBuilder(SMALL_KEYS, 0.01);
    for (long i = 0; i < SMALL_KEYS; i++) {
      b.add(4 * i + residue);
    }
    b.writeTo(FileSystem.real(), file);
    assertThat(b.pageCount()).isEqualTo(8);
    return file;
  }

  /**
   * 500 ids {@code 4i + residue} (i < {@link #SMALL_KEYS}) whose page in {@code f} passes {@code
   * onPage}.
   */
  private static long[] ids(BloomFilter f, int residue, IntPredicate onPage, SplittableRandom rnd) {
    long[] ids = new long[500];
    for (int n = 0; n < ids.length; ) {
      long id = 4L * rnd.nextInt(SMALL_KEYS) + residue;
      if (onPage.test(Hashing.page(Hashing.mix64(id), f.pageCount()))) {
        ids[n++] = id;
      }
    }
    return ids;
  }

  /** The pages of {@code f} resident now, ascending. */
  private static List<Integer> resident(BloomFilter f) {
    List<Integer> pages = new ArrayList<>();
    for (int p = 0; p < f.pageCount(); p++) {
      if (f.slot(p) >= 0) {
        pages.add(p);
      }
    }
    return pages;
  }

  private static double noRate(Path file, int budgetPages, BloomPolicy policy, long seed)
      throws Exception {
    SplittableRandom rnd = new SplittableRandom(seed);
    try (BloomPager pager = new BloomPager((long) budgetPages * BloomFormat.PAGE_SIZE, policy);
        BloomFilter f = BloomFilter.open(FileSystem.real(), file, pager)) {
      int pages = f.pageCount();
      List<Long> hotAbsent = new ArrayList<>();
      List<Long> hotPresent = new ArrayList<>();
      while (hotAbsent.size() < 2000 || hotPresent.size() < 2000) {
        long id = rnd.nextLong(2L * KEYS);
        int page = Hashing.page(Hashing.mix64(id), pages);
        if (id % 2 == 1 && page >= pages - pages / 8 && hotAbsent.size() < 2000) {
          hotAbsent.add(id);
        } else if (id % 2 == 0
            && page >= pages / 2
            && page < pages / 2 + pages / 8
            && hotPresent.size() < 2000) {
          hotPresent.add(id);
        }
      }
      long no = 0;
      long asked = 0;
      for (int round = 0; round < 30; round++) {
        for (int i = 0; i < 20_000; i++) {
          int kind = rnd.nextInt(10);
          long id =
              kind < 6
                  ? hotAbsent.get(rnd.nextInt(hotAbsent.size()))
                  : kind < 9
                      ? hotPresent.get(rnd.nextInt(hotPresent.size()))
                      : rnd.nextLong(KEYS) * 2 + 1;
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
