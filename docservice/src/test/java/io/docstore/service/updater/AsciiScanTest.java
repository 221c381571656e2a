package io.docstore.service.updater;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.TestSupport;
import java.util.SplittableRandom;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;

/**
 * {@link AsciiScan}'s eight-byte scans against a byte-at-a-time model, on random bytes at every
 * offset.
 */
class AsciiScanTest {

  private static boolean plain(byte b) {
    int c = b & 0xff;
    return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
  }

  /**
   * Random bytes of up to 63, mostly plain text with a few of each kind the scans stop at, and a
   * range of them.
   */
  private record Slice(byte[] b, int from, int to) {
    static Slice random(SplittableRandom rnd) {
      byte[] b = new byte[rnd.nextInt(64)];
      for (int i = 0; i < b.length; i++) {
        b[i] =
            switch (rnd.nextInt(40)) {
              case 0 -> (byte) '"';
              case 1 -> (byte) '\\';
              case 2 -> (byte) '\n';
              case 3 -> (byte) rnd.nextInt(0x20);
              case 4 -> (byte) (0x80 + rnd.nextInt(0x80));
              case 5 -> (byte) 0x1f;
              case 6 -> (byte) 0x7f;
              default -> (byte) (0x20 + rnd.nextInt(0x60));
            };
      }
      int from = rnd.nextInt(b.length + 1);
      return new Slice(b, from, from + rnd.nextInt(b.length - from + 1));
    }
  }

  /**
   * Runs {@code check} on 20,000 random slices; its second argument describes the case for
   * failures.
   */
  private static void forRandomSlices(String name, BiConsumer<Slice, String> check) {
    long seed = TestSupport.seed(name);
    SplittableRandom rnd = new SplittableRandom(seed);
    for (int round = 0; round < 20_000; round++) {
      check.accept(Slice.random(rnd), "seed " + seed + " round " + round);
    }
  }

  @Test
  void skipPlainTextStopsAtOrBeforeTheFirstSpecialByte() {
    forRandomSlices(
        "AsciiScanTest.skip",
        (c, what) -> {
          int firstSpecial = c.from();
          while (firstSpecial < c.to() && plain(c.b()[firstSpecial])) {
            firstSpecial++;
          }
          int p = AsciiScan.skipPlainText(c.b(), c.from(), c.to());
          assertThat(p).as(what).isBetween(c.from(), firstSpecial);
          // It skips every whole eight-byte word of plain text before the first special byte.
          assertThat(firstSpecial - p).as(what).isLessThan(Long.BYTES);
        });
  }

  @Test
  void indexOfNewlineFindsTheFirstNewline() {
    forRandomSlices(
        "AsciiScanTest.newline",
        (c, what) -> {
          int expected = c.from();
          while (expected < c.to() && c.b()[expected] != '\n') {
            expected++;
          }
          assertThat(AsciiScan.indexOfNewline(c.b(), c.from(), c.to()))
              .as(what)
              .isEqualTo(expected);
        });
  }
}
