package io.docstore.queue.segment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.io.CorruptionException;
import io.docstore.io.FileSystem;
import io.docstore.queue.block.BlockBuilder;
import io.docstore.queue.format.BlockFormat;
import io.docstore.queue.format.SegmentFileName;
import io.docstore.queue.format.SegmentFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Recovery states a crash can leave that the facade tests do not reach directly. */
class SegmentRecoveryTest {

  @TempDir Path dir;

  private final QueueCounters counters = new QueueCounters();

  private SegmentRecovery.Recovered open() throws IOException {
    return SegmentRecovery.open(FileSystem.real(), dir, counters, 1 << 20, 8192);
  }

  private static void close(SegmentRecovery.Recovered r) throws IOException {
    r.appender().close();
    r.segments().closeAll();
  }

  private static void appendBlock(SegmentRecovery.Recovered r, long seq) throws IOException {
    BlockBuilder b = new BlockBuilder();
    b.add(seq, 1, 1, BlockFormat.OP_PUT, new byte[] {1, 2, 3});
    ByteBuffer block = b.finish();
    r.appender().write(block, b.lastCrc(), seq);
  }

  @Test
  void emptyDirectoryGetsSegmentOne() throws IOException {
    SegmentRecovery.Recovered r = open();
    assertThat(r.lastSequence()).isZero();
    assertThat(r.segments().last().number()).isEqualTo(1);
    assertThat(Files.exists(dir.resolve("seg-0000000001.active"))).isTrue();
    close(r);
  }

  @Test
  void sealedWithoutActiveGetsTheNextSegment() throws IOException {
    SegmentRecovery.Recovered r = open();
    appendBlock(r, 1);
    r.appender().roll();
    close(r);
    Files.delete(dir.resolve("seg-0000000002.active"));
    r = open();
    assertThat(r.lastSequence()).isEqualTo(1);
    assertThat(r.segments().last().number()).isEqualTo(2);
    assertThat(r.segments().last().baseSequence()).isEqualTo(2);
    close(r);
  }

  @Test
  void activeWithCompleteFooterIsPublishedAsSealed() throws IOException {
    SegmentRecovery.Recovered r = open();
    appendBlock(r, 1);
    appendBlock(r, 2);
    r.appender().roll();
    close(r);
    Files.delete(dir.resolve("seg-0000000002.active"));
    Files.move(dir.resolve("seg-0000000001.sealed"), dir.resolve("seg-0000000001.active"));
    r = open();
    assertThat(Files.exists(dir.resolve("seg-0000000001.sealed"))).isTrue();
    assertThat(r.segments().get(1).sealed()).isTrue();
    assertThat(r.segments().last().number()).isEqualTo(2);
    assertThat(r.lastSequence()).isEqualTo(2);
    close(r);
  }

  @Test
  void incompletelyCreatedSegmentIsDropped() throws IOException {
    close(open());
    Path active = new SegmentFileName(1, false).in(dir);
    Files.write(active, new byte[10]);
    SegmentRecovery.Recovered r = open();
    assertThat(counters.tornTailBytesDropped.sum()).isEqualTo(10);
    assertThat(Files.size(active)).isEqualTo(SegmentFormat.HEADER_LENGTH);
    close(r);
  }

  @Test
  void activeSegmentBeforeANewerOneIsCorruption() throws IOException {
    SegmentRecovery.Recovered r = open();
    appendBlock(r, 1);
    r.appender().roll();
    close(r);
    Files.copy(dir.resolve("seg-0000000002.active"), dir.resolve("seg-0000000003.active"));
    Files.move(dir.resolve("seg-0000000001.sealed"), dir.resolve("seg-0000000001.active"));
    Files.write(dir.resolve("seg-0000000001.active"), new byte[] {9}, StandardOpenOption.APPEND);
    assertThatThrownBy(this::open).isInstanceOf(CorruptionException.class);
  }
}
