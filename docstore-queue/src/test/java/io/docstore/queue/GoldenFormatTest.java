package io.docstore.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.SyncPolicy;
import io.docstore.queue.tools.QueueVerifier;
import io.docstore.queue.tools.SegmentDump;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Freezes segment format version 1: {@code src/test/resources/golden/queue-v1/} holds a queue
 * written by the first version (two sealed segments and an empty active one; compressed and raw blocks, a PUT
 * with an empty body, DELETEs, a record larger than a block, incompressible bytes). This build must read it exactly.
 * To regenerate after a deliberate format change (with a new version number), run
 * {@link #write} via {@code -Ddocstore.golden.write=<dir>}.
 */
class GoldenFormatTest {

  private static final String[] FILES = {"seg-0000000001.sealed", "seg-0000000002.sealed", "seg-0000000003.active"};
  static final int RECORDS = 60;

  @TempDir
  Path dir;

  static QueueOptions options() {
    return QueueOptions.builder().syncPolicy(SyncPolicy.NONE).blockSize(512).segmentSize(1024).build();
  }

  static Op op(int i) {
    return i % 7 == 3 ? Op.DELETE : Op.PUT;
  }

  static byte[] body(int i) {
    if (op(i) == Op.DELETE || i == 5) {
      return new byte[0];
    }
    if (i == 30) {
      byte[] noise = new byte[470];
      new java.util.Random(30).nextBytes(noise);
      return noise;
    }
    if (i == 20) {
      return "x".repeat(700).getBytes(StandardCharsets.US_ASCII);
    }
    return ("{\"id\":" + i + ",\"title\":\"golden record " + i + "\",\"text\":\"" + "abc".repeat(i % 9) + "\"}")
        .getBytes(StandardCharsets.US_ASCII);
  }

  static void write(Path dir) throws IOException {
    try (Queue q = Queue.open(dir, options())) {
      for (int i = 0; i < RECORDS; i++) {
        q.writer().append(1000 + i, op(i), 1_700_000_000_000L + i, body(i));
      }
    }
  }

  @Test
  void readsVersionOneFiles() throws IOException {
    String regenerate = System.getProperty("docstore.golden.write");
    if (regenerate != null) {
      write(Path.of(regenerate));
    }
    for (String f : FILES) {
      try (InputStream in = GoldenFormatTest.class.getResourceAsStream("/golden/queue-v1/" + f)) {
        assertThat(in).as(f).isNotNull();
        Files.copy(in, dir.resolve(f), StandardCopyOption.REPLACE_EXISTING);
      }
    }
    assertThat(QueueVerifier.verify(dir)).isEmpty();
    try (Queue q = Queue.open(dir, options()); QueueTailer t = q.tailer(1)) {
      assertThat(q.lastSequence()).isEqualTo(RECORDS);
      for (int i = 0; i < RECORDS; i++) {
        Record r = t.poll();
        assertThat(r.sequence()).isEqualTo(i + 1);
        assertThat(r.id()).isEqualTo(1000 + i);
        assertThat(r.op()).isEqualTo(op(i));
        assertThat(r.acceptedAtMillis()).isEqualTo(1_700_000_000_000L + i);
        assertThat(r.body()).isEqualTo(body(i));
        assertThat(q.reader().get(r.address()).body()).isEqualTo(body(i));
      }
      assertThat(t.poll()).isNull();
    }
    ByteArrayOutputStream text = new ByteArrayOutputStream();
    for (String f : FILES) {
      assertThat(SegmentDump.dump(dir.resolve(f), new PrintStream(text, true, StandardCharsets.UTF_8))).isTrue();
    }
    String dump = text.toString(StandardCharsets.UTF_8);
    assertThat(dump).contains("format docstore.segment v1, segment 1, base sequence 1").contains("lz4").contains(", raw,")
        .contains("footer @");
  }
}
