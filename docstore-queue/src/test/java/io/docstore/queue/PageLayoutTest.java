package io.docstore.queue;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Where page-aligned blocks go: table tests of {@link PageLayout}'s pure functions (header = 24
 * bytes).
 */
class PageLayoutTest {

  private static final long SEGMENT = 1L << 30;

  @ParameterizedTest(name = "block at {0}, first record {1} B, blockSize {2}: capacity {3}")
  @CsvSource({
    "4096, 300, 8192, 4096", // a page from its start
    "5000, 300, 8192, 3192", // the rest of the page
    "4096, 300, 1024, 1048", // blockSize caps it
    "4096, 6000, 8192, 8192", // one record larger than a page: to the end of the page it ends in
    "4096, 9000, 8192, 9024", // larger than blockSize too: the record alone
  })
  void capacity(long offset, int firstCost, int blockSize, int expected) {
    assertThat(PageLayout.capacityAt(offset, firstCost, blockSize)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "block ending at {0}, next record {1} B: pad {2}")
  @CsvSource({
    "8192, 300, 0", // ends on a page: nothing to pad
    "8150, -1, 42", // less than MIN_ROOM left
    "8000, -1, 0", // room enough, next record unknown
    "8000, 300, 192", // the next record does not fit in the 192 bytes left
    "8000, 100, 0", // it fits
    "8000, 5000, 0", // larger than a page: it straddles anyway
  })
  void padding(long end, int nextCost, int expected) {
    assertThat(PageLayout.padAfter(end, nextCost, SEGMENT)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "next block at {0}, first record {1} B: padding block of {2}")
  @CsvSource({
    "4096, 300, 0", // on a page
    "7900, 300, 292", // 196 bytes left: pad them
    "7900, 100, 0", // fits
    "8180, 300, 4108", // 12 bytes left, less than a padding block: pad through the next page
    "7900, 5000, 0", // larger than a page
  })
  void gap(long pos, int cost, int expected) {
    assertThat(PageLayout.gapBefore(pos, cost, SEGMENT)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "near the segment's end at {0}: no padding")
  @CsvSource({"8150", "8000"})
  void neverPastTheSegmentSize(long pos) {
    assertThat(PageLayout.padAfter(pos, 300, 8192)).isZero();
    assertThat(PageLayout.gapBefore(pos, 300, 8192)).isZero();
  }
}
