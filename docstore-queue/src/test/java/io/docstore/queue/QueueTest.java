package io.docstore.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.io.SyncPolicy;
import io.docstore.queue.format.Address;
import io.docstore.queue.format.SegmentFormat;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QueueTest {

  @TempDir Path dir;

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void appendsFlushesAndReadsBack() throws Exception {
    try (DocQueue q = DocQueue.open(dir, QueueOptions.defaults())) {
      Appended a = q.writer().append(7, Op.PUT, 1000, bytes("hello"));
      Appended b = q.writer().append(8, Op.DELETE, 1001, new byte[0]);
      assertThat(a.sequence()).isEqualTo(1);
      assertThat(b.sequence()).isEqualTo(2);
      assertThat(a.address()).isPositive();
      assertThat(q.lastSequence()).isZero();
      q.writer().flush();
      assertThat(q.lastSequence()).isEqualTo(2);
      QueueRecord r = q.reader().get(a.address());
      assertThat(r)
          .usingRecursiveComparison()
          .isEqualTo(new QueueRecord(a.address(), 7, 1, Op.PUT, 1000, bytes("hello")));
      QueueRecord d = q.reader().get(b.address());
      assertThat(d.op()).isEqualTo(Op.DELETE);
      assertThat(d.body()).isEmpty();
      assertThat(d.sequence()).isEqualTo(2);
    }
  }

  @Test
  void reopenResumesSequencesAndKeepsRecords() throws Exception {
    List<Appended> appended = new ArrayList<>();
    try (DocQueue q = DocQueue.open(dir, QueueOptions.defaults())) {
      for (int i = 0; i < 100; i++) {
        appended.add(q.writer().append(i, Op.PUT, i, bytes("doc " + i)));
      }
    }
    try (DocQueue q = DocQueue.open(dir, QueueOptions.defaults())) {
      assertThat(q.lastSequence()).isEqualTo(100);
      assertThat(q.durableSequence()).isEqualTo(100);
      for (int i = 0; i < 100; i++) {
        assertThat(q.reader().get(appended.get(i).address()).body()).isEqualTo(bytes("doc " + i));
      }
      Appended next = q.writer().append(5, Op.PUT, 0, bytes("x"));
      assertThat(next.sequence()).isEqualTo(101);
    }
  }

  @Test
  void awaitDurableFlushesAndSyncs() throws Exception {
    try (DocQueue q =
        DocQueue.open(dir, QueueOptions.builder().syncPolicy(SyncPolicy.ALWAYS).build())) {
      Appended a = q.writer().append(1, Op.PUT, 0, bytes("a"));
      long before = q.stats().fsyncs();
      q.writer().awaitDurable(a.sequence());
      assertThat(q.durableSequence()).isGreaterThanOrEqualTo(1);
      assertThat(q.lastSequence()).isEqualTo(1);
      assertThat(q.stats().fsyncs()).isGreaterThan(before);
      assertThatThrownBy(() -> q.writer().awaitDurable(5))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void rejectsBadInput() throws Exception {
    try (DocQueue q = DocQueue.open(dir, QueueOptions.builder().maxBodyBytes(10).build())) {
      assertThatThrownBy(() -> q.writer().append(1, Op.PUT, 0, new byte[11]))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("exceeds the maximum of 10 bytes");
      assertThatThrownBy(() -> q.writer().append(-1, Op.PUT, 0, new byte[1]))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(">= 0");
      assertThatThrownBy(() -> q.writer().append(1, Op.DELETE, 0, new byte[1]))
          .isInstanceOf(IllegalArgumentException.class);
      q.writer().append(1, Op.PUT, 0, new byte[10]);
      q.writer().flush();
      long good = Address.of(1, SegmentFormat.HEADER_LENGTH, 0);
      assertThat(q.reader().get(good).body()).hasSize(10);
      assertThatThrownBy(() -> q.reader().get(Address.of(2, SegmentFormat.HEADER_LENGTH, 0)))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> q.reader().get(Address.of(1, SegmentFormat.HEADER_LENGTH, 1)))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> q.reader().get(Address.of(1, 1 << 20, 0)))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> q.reader().get(0)).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> q.reader().get(-5)).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void rollsSegmentsAndReadsAcrossThem() throws Exception {
    QueueOptions o =
        QueueOptions.builder().blockSize(512).segmentSize(4096).syncPolicy(SyncPolicy.NONE).build();
    List<Appended> appended = new ArrayList<>();
    try (DocQueue q = DocQueue.open(dir, o)) {
      for (int i = 0; i < 500; i++) {
        appended.add(
            q.writer()
                .append(i, Op.PUT, i, bytes("document number " + i + " with some padding text")));
      }
      q.writer().flush();
      assertThat(q.stats().segmentsSealed()).isGreaterThan(2);
      for (int i = 0; i < 500; i++) {
        assertThat(q.reader().get(appended.get(i).address()).id()).isEqualTo(i);
      }
    }
    try (DocQueue q = DocQueue.open(dir, o);
        QueueTailer t = q.tailer(1)) {
      for (int i = 0; i < 500; i++) {
        QueueRecord r = t.poll();
        assertThat(r.sequence()).isEqualTo(i + 1);
        assertThat(r.address()).isEqualTo(appended.get(i).address());
      }
      assertThat(t.poll()).isNull();
    }
    assertThat(Files.list(dir).filter(p -> p.toString().endsWith(".sealed")).count())
        .isGreaterThan(2);
  }
}
