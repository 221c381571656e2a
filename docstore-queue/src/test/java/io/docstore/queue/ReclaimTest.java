package io.docstore.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.io.SyncPolicy;
import io.docstore.queue.format.SegmentFileName;
import io.docstore.queue.tools.QueueVerifier;
import io.docstore.queue.tools.SegmentDump;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reclaimed segment is replaced by its hollow form: its records cannot be read, tailers step over
 * its sequences, every other record reads as before, and all of it survives a reopen, {@code
 * verify} and {@code dump}.
 */
class ReclaimTest {

  @TempDir Path dir;

  private static QueueOptions options() {
    return QueueOptions.builder()
        .syncPolicy(SyncPolicy.NONE)
        .blockSize(1024)
        .segmentSize(8192)
        .build();
  }

  /** Incompressible, so the records fill several 8 KiB segments. */
  private static byte[] body(int i) {
    byte[] b = new byte[300 + i % 50];
    new java.util.Random(i).nextBytes(b);
    return b;
  }

  /**
   * A crash between writing the hollow file and renaming it over the segment leaves {@code
   * seg-N.sealed.tmp}: the queue opens as before and the next reclamation of that segment goes
   * through (it used to fail on the leftover file at every pass, for good).
   */
  @Test
  void aHollowFileLeftByACrashBeforeTheRenameDoesNotStopTheNextReclamation() throws Exception {
    List<Appended> written = new ArrayList<>();
    try (DocQueue q = DocQueue.open(dir, options())) {
      for (int i = 0; i < 200; i++) {
        written.add(q.writer().append(i, Op.PUT, 1_700_000_000_000L + i, body(i)));
      }
      q.writer().sync();
    }
    Path sealed = new SegmentFileName(2, true).in(dir);
    Path leftover = sealed.resolveSibling(sealed.getFileName() + ".tmp");
    Files.write(leftover, new byte[100]); // what the crash left: written, not renamed
    try (DocQueue q = DocQueue.open(dir, options())) {
      SegmentSummary victim = q.segmentSummaries().get(1);
      assertThat(victim.number()).isEqualTo(2);
      q.reclaim(2);
      assertThat(Files.size(sealed)).isEqualTo(100);
      assertThat(leftover).doesNotExist();
      checkReads(q, written, victim.firstSequence(), victim.lastSequence());
    }
    assertThat(QueueVerifier.verify(dir)).isEmpty();
  }

  @Test
  void aHollowSegmentIsSteppedOverAndItsRecordsAreGone() throws Exception {
    List<Appended> written = new ArrayList<>();
    long victimFirst;
    long victimLast;
    try (DocQueue q = DocQueue.open(dir, options())) {
      for (int i = 0; i < 200; i++) {
        written.add(q.writer().append(i, Op.PUT, 1_700_000_000_000L + i, body(i)));
      }
      q.writer().sync();
      List<SegmentSummary> segs = q.segmentSummaries();
      assertThat(segs.size()).isGreaterThanOrEqualTo(4);
      SegmentSummary victim = segs.get(1);
      victimFirst = victim.firstSequence();
      victimLast = victim.lastSequence();
      assertThatThrownBy(() -> q.reclaim(segs.get(segs.size() - 1).number()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("newest");

      q.reclaim(victim.number());
      assertThatThrownBy(() -> q.reclaim(victim.number()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("hollow already");
      assertThat(Files.size(new SegmentFileName(victim.number(), true).in(dir))).isEqualTo(100);
      checkReads(q, written, victimFirst, victimLast);
    }
    try (DocQueue q = DocQueue.open(dir, options())) {
      checkReads(q, written, victimFirst, victimLast);
      // Appending goes on after the hollow segment, sequences continuing.
      Appended a = q.writer().append(500, Op.PUT, 0, body(500));
      assertThat(a.sequence()).isEqualTo(201);
    }
    assertThat(QueueVerifier.verify(dir)).isEmpty();
    ByteArrayOutputStream text = new ByteArrayOutputStream();
    SegmentDump.dump(
        new SegmentFileName(2, true).in(dir), new PrintStream(text, true, StandardCharsets.UTF_8));
    assertThat(text.toString(StandardCharsets.UTF_8)).contains("reclaimed");
  }

  private static void checkReads(DocQueue q, List<Appended> written, long first, long last)
      throws Exception {
    for (int i = 0; i < written.size(); i++) {
      Appended a = written.get(i);
      if (a.sequence() >= first && a.sequence() <= last) {
        assertThatThrownBy(() -> q.reader().get(a.address()))
            .isInstanceOf(ReclaimedAddressException.class);
      } else {
        assertThat(q.reader().get(a.address()).body()).isEqualTo(body(i));
      }
    }
    try (QueueTailer t = q.tailer(1)) {
      long expected = 1;
      QueueRecord r;
      while ((r = t.poll()) != null) {
        if (expected == first) {
          expected = last + 1;
        }
        assertThat(r.sequence()).isEqualTo(expected++);
      }
      assertThat(expected).isEqualTo(written.size() + 1);
      assertThat(t.reclaimedThrough()).isEqualTo(last);
    }
    try (QueueTailer t = q.tailer(first + 1)) {
      assertThat(t.poll().sequence()).isEqualTo(last + 1);
    }
  }

  @Test
  void aTemporaryFileLeftByACrashDuringReclaimIsIgnored() throws Exception {
    try (DocQueue q = DocQueue.open(dir, options())) {
      for (int i = 0; i < 100; i++) {
        q.writer().append(i, Op.PUT, 0, body(i));
      }
    }
    Files.write(dir.resolve("seg-0000000001.sealed.tmp"), new byte[] {1, 2, 3});
    try (DocQueue q = DocQueue.open(dir, options())) {
      assertThat(q.reader().get(q.tailer(1).poll().address()).id()).isZero();
    }
  }
}
