package io.docstore.service.bulk;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.TestSupport;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link ChunkReader}: whole lines only, nothing lost or repeated, over-long lines cut and skipped.
 */
class ChunkReaderTest {

  @Test
  void chunksOfWholeLinesConcatenateToTheInput() throws IOException {
    long seed = TestSupport.seed("ChunkReaderTest");
    SplittableRandom rnd = new SplittableRandom(seed);
    for (int round = 0; round < 50 * TestSupport.scale(); round++) {
      ByteArrayOutputStream input = new ByteArrayOutputStream();
      int lines = rnd.nextInt(200);
      for (int i = 0; i < lines; i++) {
        input.writeBytes("x".repeat(rnd.nextInt(300)).getBytes(StandardCharsets.US_ASCII));
        if (i < lines - 1 || rnd.nextBoolean()) {
          input.write('\n');
        }
      }
      byte[] bytes = input.toByteArray();
      int chunkBytes = 1 + rnd.nextInt(1000);
      ChunkReader reader = new ChunkReader(trickle(bytes, rnd), chunkBytes, 1000);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      for (ChunkReader.Input c = reader.next(); c != null; c = reader.next()) {
        int end = out.size() + c.length();
        assertThat(
                end == bytes.length
                    || (c.length() > 0 && c.buf()[c.length() - 1] == '\n')
                    || c.length() == 0)
            .as("seed %d round %d: a chunk ends at a line end or at the end of input", seed, round)
            .isTrue();
        out.write(c.buf(), 0, c.length());
      }
      assertThat(out.toByteArray()).as("seed %d round %d", seed, round).isEqualTo(bytes);
    }
  }

  @Test
  void aLineLongerThanTheLimitComesAloneAndItsRestIsSkipped() throws IOException {
    String input = "a\n" + "b".repeat(5000) + "\nc\n";
    ChunkReader reader =
        new ChunkReader(
            new ByteArrayInputStream(input.getBytes(StandardCharsets.US_ASCII)), 64, 100);
    StringBuilder seen = new StringBuilder();
    for (ChunkReader.Input c = reader.next(); c != null; c = reader.next()) {
      seen.append('[')
          .append(new String(c.buf(), 0, c.length(), StandardCharsets.US_ASCII))
          .append(']');
    }
    String cut = seen.toString().replace("[]", "");
    assertThat(cut).startsWith("[a\n][bbb").endsWith("b][c\n]").doesNotContain("\n" + "b");
    assertThat(cut.length()).isLessThan(5000);
  }

  /** Reads of random short lengths, as a pipe or a socket would give. */
  private static InputStream trickle(byte[] bytes, SplittableRandom rnd) {
    return new ByteArrayInputStream(bytes) {
      @Override
      public synchronized int read(byte[] b, int off, int len) {
        return super.read(b, off, Math.min(len, 1 + rnd.nextInt(400)));
      }
    };
  }
}
