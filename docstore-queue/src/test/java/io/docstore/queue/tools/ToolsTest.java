package io.docstore.queue.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.SyncPolicy;
import io.docstore.queue.DocQueue;
import io.docstore.queue.Op;
import io.docstore.queue.QueueOptions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SegmentDump and QueueVerifier on healthy and damaged queues. */
class ToolsTest {

  @TempDir Path dir;

  private void fill() throws IOException {
    try (DocQueue q =
        DocQueue.open(
            dir,
            QueueOptions.builder()
                .syncPolicy(SyncPolicy.NONE)
                .blockSize(300)
                .segmentSize(600)
                .build())) {
      for (int i = 0; i < 200; i++) {
        q.writer()
            .append(
                i,
                i % 5 == 0 ? Op.DELETE : Op.PUT,
                i,
                i % 5 == 0 ? new byte[0] : ("body " + i).getBytes(StandardCharsets.UTF_8));
      }
    }
  }

  private Path active() throws IOException {
    try (var files = Files.list(dir)) {
      return files.filter(f -> f.toString().endsWith(".active")).findFirst().orElseThrow();
    }
  }

  private static String dump(Path file) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    SegmentDump.dump(file, new PrintStream(b, true, StandardCharsets.UTF_8));
    return b.toString(StandardCharsets.UTF_8);
  }

  @Test
  void dumpPrintsHeaderBlocksRecordsAndFooter() throws IOException {
    fill();
    String sealed = dump(dir.resolve("seg-0000000001.sealed"));
    assertThat(sealed)
        .contains(
            "header: format docstore.segment v"
                + io.docstore.queue.format.SegmentFormat.VERSION
                + ", segment 1, base sequence 1")
        .contains("block @44: stored")
        .contains("OK")
        .contains("record 1/44/0 id 0 seq 1 DELETE size 0")
        .contains("record 1/44/1 id 1 seq 2 PUT size 6")
        .contains("footer @");
    assertThat(dump(active())).contains("no footer (active segment)");
  }

  @Test
  void dumpAndVerifierReportDamage() throws IOException {
    fill();
    assertThat(QueueVerifier.verify(dir)).isEmpty();
    Path sealed = dir.resolve("seg-0000000001.sealed");
    try (FileChannel ch = FileChannel.open(sealed, StandardOpenOption.WRITE)) {
      ch.write(java.nio.ByteBuffer.wrap(new byte[] {0x55}), 60);
    }
    assertThat(dump(sealed)).contains("block @44: BAD").contains("checksum mismatch");
    assertThat(QueueVerifier.verify(dir))
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.file()).isEqualTo(sealed);
              assertThat(p.offset()).isEqualTo(44);
              assertThat(p.toString()).contains("@44").contains("expected");
            });
    Files.write(active(), new byte[100], StandardOpenOption.APPEND);
    assertThat(QueueVerifier.verify(dir))
        .hasSize(2)
        .anySatisfy(p -> assertThat(p.description()).contains("torn tail of 100 bytes"));
    Files.write(dir.resolve("seg-0000009999.sealed"), new byte[3]);
    assertThat(QueueVerifier.verify(dir))
        .anySatisfy(p -> assertThat(p.description()).contains("missing"));
  }

  /** Two damaged blocks in one sealed segment: the verifier reports both, not only the first. */
  @Test
  void verifierReportsEveryDamagedBlockOfASegment() throws IOException {
    try (DocQueue q =
        DocQueue.open(
            dir,
            QueueOptions.builder()
                .syncPolicy(SyncPolicy.NONE)
                .blockSize(1024)
                .segmentSize(64 * 1024)
                .dictionaryBytes(0)
                .build())) {
      java.util.Random rnd = new java.util.Random(3);
      for (int i = 0; i < 2000; i++) {
        byte[] body = new byte[40 + rnd.nextInt(80)];
        rnd.nextBytes(body);
        q.writer().append(i, Op.PUT, i, body);
      }
    }
    Path sealed = dir.resolve("seg-0000000001.sealed");
    long size = Files.size(sealed);
    long first = size / 4;
    long second = size * 3 / 4;
    for (long at : new long[] {first, second}) {
      try (java.io.RandomAccessFile raf = new java.io.RandomAccessFile(sealed.toFile(), "rw")) {
        raf.seek(at);
        int v = raf.read();
        raf.seek(at);
        raf.write(v ^ 0x20);
      }
    }
    List<Problem> problems = QueueVerifier.verify(dir);
    assertThat(problems).as("%s", problems).hasSize(2);
    assertThat(problems.get(0).offset()).isLessThanOrEqualTo(first).isGreaterThan(first - 4096);
    assertThat(problems.get(1).offset()).isLessThanOrEqualTo(second).isGreaterThan(second - 4096);
    assertThat(problems).allMatch(p -> p.file().equals(sealed));
  }
}
