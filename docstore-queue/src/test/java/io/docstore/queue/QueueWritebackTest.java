package io.docstore.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.io.CorruptionException;
import io.docstore.io.FaultInjectingFileSystem;
import io.docstore.io.FaultInjectingFileSystem.Writeback;
import io.docstore.io.SyncPolicy;
import io.docstore.queue.format.BlockFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Power loss with out-of-order writeback (docs/formats/segment.md, "Torn tails and damage"): the
 * pages written since the last force survive or not, each on its own, so a later block can be on
 * disk while an earlier one is zeros. Every such pattern opens, keeps every acknowledged record and
 * a dense prefix of the rest; damage before the durable point a sync mark claims is still
 * corruption.
 */
class QueueWritebackTest {

  @TempDir Path root;

  private static final int ACKNOWLEDGED = 30;
  private static final int UNFORCED = 40;

  private static QueueOptions options(FaultInjectingFileSystem fs) {
    return QueueOptions.builder()
        .fileSystem(fs)
        .syncPolicy(SyncPolicy.ALWAYS)
        .blockSize(1024)
        .segmentSize(1 << 20)
        .build();
  }

  private static byte[] body(int i) {
    StringBuilder b =
        new StringBuilder("{\"id\":" + i + ",\"title\":\"job " + i + "\",\"text\":\"");
    Random r = new Random(i);
    for (int w = 0; w < 40; w++) {
      b.append((char) ('a' + r.nextInt(26))).append(r.nextInt(1000)).append(' ');
    }
    return b.append("\"}").toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  }

  /**
   * Writes {@link #ACKNOWLEDGED} records, each acknowledged (forced), then {@link #UNFORCED} more
   * that reach the file but are never forced, then loses the power with {@code writeback}; returns
   * the segment's path.
   */
  private static Path crashWriting(Path dir, FaultInjectingFileSystem fs, Writeback writeback)
      throws IOException {
    DocQueue q = DocQueue.open(dir, options(fs));
    for (int i = 0; i < ACKNOWLEDGED; i++) {
      Appended a = q.writer().append(i, Op.PUT, i, body(i));
      q.writer().awaitDurable(a.sequence());
    }
    for (int i = ACKNOWLEDGED; i < ACKNOWLEDGED + UNFORCED; i++) {
      q.writer().append(i, Op.PUT, i, body(i));
      if (i % 4 == 0) {
        q.writer().flush(); // written, not forced: what writeback may or may not keep
      }
    }
    q.writer().flush();
    Path segment =
        Files.list(dir).filter(p -> p.toString().endsWith(".active")).findFirst().orElseThrow();
    fs.crash(writeback);
    try {
      q.close();
      throw new AssertionError("a queue whose files died in a crash closed");
    } catch (IOException expected) {
      // its file handles died with the power
    }
    return segment;
  }

  /** What must hold after any power loss: the acknowledged records, then a dense prefix. */
  private static long checkRecovered(Path dir, FaultInjectingFileSystem fs, String as)
      throws IOException {
    try (DocQueue q = DocQueue.open(dir, options(fs))) {
      long last = q.lastSequence();
      assertThat(last).as(as).isBetween((long) ACKNOWLEDGED, (long) ACKNOWLEDGED + UNFORCED);
      try (QueueTailer t = q.tailer(1)) {
        for (int s = 1; s <= last; s++) {
          QueueRecord r = t.poll();
          assertThat(r.sequence()).as(as).isEqualTo(s);
          assertThat(r.body()).as(as + ", sequence %d", s).isEqualTo(body(s - 1));
          assertThat(q.reader().get(r.address()).id()).as(as).isEqualTo(s - 1);
        }
        assertThat(t.poll()).as(as).isNull();
      }
      // The writer goes on after the cut.
      Appended a = q.writer().append(999, Op.PUT, 999, body(999));
      q.writer().awaitDurable(a.sequence());
      assertThat(a.sequence()).isEqualTo(last + 1);
      return last;
    }
  }

  @Test
  void everyPatternOfPagesWrittenBackOpensWithEveryAcknowledgedRecord() throws IOException {
    int pages = unforcedPages(root.resolve("probe"));
    assertThat(pages).as("unforced pages to enumerate").isBetween(3, 12);
    int outOfOrder = 0;
    int n = 0;
    for (long mask = 0; mask < 1L << pages; mask++) {
      for (boolean keepsLength : new boolean[] {false, true}) {
        FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
        Path dir = root.resolve("run-" + n++);
        crashWriting(dir, fs, Writeback.mask(mask, keepsLength));
        String as = "pages kept " + Long.toBinaryString(mask) + ", length kept " + keepsLength;
        long last = checkRecovered(dir, fs, as);
        boolean laterPageKept = mask >>> Long.numberOfTrailingZeros(~mask) != 0;
        if (laterPageKept && last < ACKNOWLEDGED + UNFORCED) {
          outOfOrder++;
        }
      }
    }
    assertThat(outOfOrder)
        .as("patterns where a lost page had surviving blocks after it (what used to be refused)")
        .isGreaterThan(0);
  }

  @Test
  void randomWritebackAcrossManyCrashesKeepsEveryAcknowledgedRecord() throws IOException {
    for (long seed = 1; seed <= 40; seed++) {
      FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
      Path dir = root.resolve("seed-" + seed);
      crashWriting(dir, fs, Writeback.random(seed));
      checkRecovered(dir, fs, "seed " + seed);
    }
  }

  @Test
  void damageBeforeTheDurablePointIsStillCorruptionWithItsFileAndOffset() throws IOException {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    Path dir = root.resolve("damaged");
    Path segment = crashWriting(dir, fs, Writeback.mask(-1L, true)); // every page kept
    long offset = firstRecordBlock(segment);
    flip(segment, offset + BlockFormat.HEADER_LENGTH + 40);
    assertThatThrownBy(() -> DocQueue.open(dir, options(fs)).close())
        .isInstanceOfSatisfying(
            CorruptionException.class,
            e -> {
              assertThat(e.file()).isEqualTo(segment);
              assertThat(e.offset()).isEqualTo(offset);
            })
        .hasMessageContaining("sync mark");
    assertThat(Files.size(segment)).as("nothing truncated").isGreaterThan(offset + 4096);
  }

  /** How many pages {@link #crashWriting} leaves unforced. */
  private static int unforcedPages(Path dir) throws IOException {
    int[] pages = new int[1];
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    crashWriting(
        dir,
        fs,
        new Writeback() {
          @Override
          public boolean keeps(Path file, int page) {
            pages[0] = Math.max(pages[0], page + 1);
            return true;
          }

          @Override
          public boolean keepsLength(Path file) {
            return true;
          }
        });
    return pages[0];
  }

  /** Offset of the segment's first block (right after the 44-byte header). */
  private static long firstRecordBlock(Path segment) {
    return io.docstore.queue.format.SegmentFormat.HEADER_LENGTH;
  }

  private static void flip(Path file, long offset) throws IOException {
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      ch.read(b, offset);
      b.put(0, (byte) (b.get(0) ^ 0x10));
      ch.write(b.flip(), offset);
    }
  }
}
