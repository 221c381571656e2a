package io.docstore.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.io.SyncPolicy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QueueTailerTest {

  @TempDir
  Path dir;

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void tailerWaitsForNewRecords() throws Exception {
    try (Queue q = Queue.open(dir, QueueOptions.builder().syncPolicy(SyncPolicy.NONE).build());
        QueueTailer t = q.tailer(1)) {
      assertThat(t.poll()).isNull();
      assertThat(t.next(10, TimeUnit.MILLISECONDS)).isNull();
      Thread producer = new Thread(() -> {
        try {
          q.writer().append(3, Op.PUT, 0, bytes("late"));
          q.writer().flush();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      producer.start();
      Record r = t.next(30, TimeUnit.SECONDS);
      producer.join();
      assertThat(r.id()).isEqualTo(3);
      assertThat(r.body()).isEqualTo(bytes("late"));
    }
  }

  @Test
  void tailerStartsAtASequence() throws Exception {
    QueueOptions o = QueueOptions.builder().blockSize(256).segmentSize(2048).syncPolicy(SyncPolicy.NONE).build();
    try (Queue q = Queue.open(dir, o)) {
      for (int i = 0; i < 300; i++) {
        q.writer().append(i, Op.PUT, i, bytes("record " + i));
      }
      q.writer().flush();
      for (long from : new long[] {0, 1, 2, 57, 150, 299, 300, 301}) {
        try (QueueTailer t = q.tailer(from)) {
          Record r = t.poll();
          if (from > 300) {
            assertThat(r).isNull();
          } else {
            assertThat(r.sequence()).isEqualTo(Math.max(1, from));
          }
        }
      }
    }
  }

  @Test
  void followsTheWriterAcrossSegmentRolls() throws Exception {
    QueueOptions o = QueueOptions.builder().blockSize(256).segmentSize(1024).syncPolicy(SyncPolicy.NONE).build();
    try (Queue q = Queue.open(dir, o); QueueTailer t = q.tailer(1)) {
      for (int i = 0; i < 200; i++) {
        q.writer().append(i, Op.PUT, i, bytes("record number " + i + " padded to make blocks fill up"));
        if (i % 3 == 0) {
          q.writer().flush();
        }
        Record r = i % 3 == 0 ? t.next(30, TimeUnit.SECONDS) : null;
        if (r != null) {
          assertThat(r.sequence()).isLessThanOrEqualTo(i + 1);
        }
      }
      q.writer().flush();
      assertThat(q.stats().segmentsSealed()).isGreaterThan(3);
    }
    try (Queue q = Queue.open(dir, o); QueueTailer t = q.tailer(1)) {
      long expected = 1;
      Record r;
      while ((r = t.next(1, TimeUnit.MILLISECONDS)) != null) {
        assertThat(r.sequence()).isEqualTo(expected++);
      }
      assertThat(expected).isEqualTo(201);
    }
  }

  @Test
  void closedTailerRefusesToPoll() throws Exception {
    try (Queue q = Queue.open(dir, QueueOptions.builder().syncPolicy(SyncPolicy.NONE).build())) {
      QueueTailer t = q.tailer(1);
      t.close();
      assertThatThrownBy(t::poll).hasMessageContaining("closed");
    }
  }

  @Test
  void startsAtAnAddress() throws Exception {
    try (Queue q = Queue.open(dir, QueueOptions.builder().syncPolicy(SyncPolicy.NONE).blockSize(256).build())) {
      Appended third = null;
      for (int i = 0; i < 30; i++) {
        Appended a = q.writer().append(i, Op.PUT, i, bytes("r" + i));
        if (i == 17) {
          third = a;
        }
      }
      q.writer().flush();
      try (QueueTailer t = q.tailerAt(third.address())) {
        assertThat(t.poll().sequence()).isEqualTo(18);
        assertThat(t.poll().sequence()).isEqualTo(19);
      }
      assertThatThrownBy(() -> q.tailerAt(1)).isInstanceOf(IllegalArgumentException.class);
    }
  }
}
