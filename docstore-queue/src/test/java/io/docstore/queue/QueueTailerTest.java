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

  @TempDir Path dir;

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void tailerWaitsForNewRecords() throws Exception {
    try (DocQueue q =
            DocQueue.open(dir, QueueOptions.builder().syncPolicy(SyncPolicy.NONE).build());
        QueueTailer t = q.tailer(1)) {
      assertThat(t.poll()).isNull();
      assertThat(t.next(10, TimeUnit.MILLISECONDS)).isNull();
      Thread producer =
          new Thread(
              () -> {
                try {
                  q.writer().append(3, Op.PUT, 0, bytes("late"));
                  q.writer().flush();
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      producer.start();
      QueueRecord r = t.next(30, TimeUnit.SECONDS);
      producer.join();
      assertThat(r.id()).isEqualTo(3);
      assertThat(r.body()).isEqualTo(bytes("late"));
    }
  }

  @Test
  void tailerStartsAtASequence() throws Exception {
    QueueOptions o =
        QueueOptions.builder().blockSize(256).segmentSize(2048).syncPolicy(SyncPolicy.NONE).build();
    try (DocQueue q = DocQueue.open(dir, o)) {
      for (int i = 0; i < 300; i++) {
        q.writer().append(i, Op.PUT, i, bytes("record " + i));
      }
      q.writer().flush();
      for (long from : new long[] {0, 1, 2, 57, 150, 299, 300, 301}) {
        try (QueueTailer t = q.tailer(from)) {
          QueueRecord r = t.poll();
          if (from > 300) {
            assertThat(r).isNull();
          } else {
            assertThat(r.sequence()).isEqualTo(Math.max(1, from));
          }
        }
      }
    }
  }

  /**
   * A tailer after a record, found from that record's block, hands on exactly what a tailer from
   * the next sequence does: within a block, across blocks and across segments, from the files.
   */
  @Test
  void aTailerAfterARecordStartsAtTheNextOne() throws Exception {
    QueueOptions o =
        QueueOptions.builder().blockSize(256).segmentSize(2048).syncPolicy(SyncPolicy.NONE).build();
    try (DocQueue q = DocQueue.open(dir, o)) {
      for (int i = 0; i < 300; i++) {
        q.writer().append(i, Op.PUT, i, bytes("record " + i));
      }
      q.writer().sync();
    }
    try (DocQueue q = DocQueue.openReadOnly(dir, o);
        QueueTailer all = q.tailer(1)) {
      QueueRecord r;
      while ((r = all.poll()) != null) {
        try (QueueTailer after = q.tailerAfter(r);
            QueueTailer plain = q.tailer(r.sequence() + 1)) {
          for (int k = 0; k < 3; k++) {
            QueueRecord a = after.poll();
            QueueRecord b = plain.poll();
            assertThat(a == null ? -1 : a.sequence())
                .as("after %d", r.sequence())
                .isEqualTo(b == null ? -1 : b.sequence());
            if (a != null) {
              assertThat(a.address()).isEqualTo(b.address());
            }
          }
        }
      }
    }
  }

  @Test
  void followsTheWriterAcrossSegmentRolls() throws Exception {
    QueueOptions o =
        QueueOptions.builder().blockSize(256).segmentSize(1024).syncPolicy(SyncPolicy.NONE).build();
    try (DocQueue q = DocQueue.open(dir, o);
        QueueTailer t = q.tailer(1)) {
      for (int i = 0; i < 200; i++) {
        q.writer()
            .append(i, Op.PUT, i, bytes("record number " + i + " padded to make blocks fill up"));
        if (i % 3 == 0) {
          q.writer().flush();
        }
        QueueRecord r = i % 3 == 0 ? t.next(30, TimeUnit.SECONDS) : null;
        if (r != null) {
          assertThat(r.sequence()).isLessThanOrEqualTo(i + 1);
        }
      }
      q.writer().flush();
      assertThat(q.stats().segmentsSealed()).isGreaterThan(3);
    }
    try (DocQueue q = DocQueue.open(dir, o);
        QueueTailer t = q.tailer(1)) {
      long expected = 1;
      QueueRecord r;
      while ((r = t.next(1, TimeUnit.MILLISECONDS)) != null) {
        assertThat(r.sequence()).isEqualTo(expected++);
      }
      assertThat(expected).isEqualTo(201);
    }
  }

  @Test
  void closedTailerRefusesToPoll() throws Exception {
    try (DocQueue q =
        DocQueue.open(dir, QueueOptions.builder().syncPolicy(SyncPolicy.NONE).build())) {
      QueueTailer t = q.tailer(1);
      t.close();
      assertThatThrownBy(t::poll).hasMessageContaining("closed");
    }
  }

  @Test
  void startsAtAnAddress() throws Exception {
    try (DocQueue q =
        DocQueue.open(
            dir, QueueOptions.builder().syncPolicy(SyncPolicy.NONE).blockSize(256).build())) {
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

  /** Close behind the writer, records come from its memory: no block is read back. */
  @Test
  void aTailerCloseBehindTheWriterReadsNoBlock() throws Exception {
    try (DocQueue q =
            DocQueue.open(dir, QueueOptions.builder().syncPolicy(SyncPolicy.NONE).build());
        QueueTailer t = q.tailer(1)) {
      for (int i = 0; i < 500; i++) {
        q.writer().append(i, Op.PUT, i, bytes("doc " + i));
        assertThat(t.poll()).as("not written yet").isNull();
        q.writer().flush();
        QueueRecord r = t.poll();
        assertThat(r.sequence()).isEqualTo(i + 1);
        assertThat(r.id()).isEqualTo(i);
        assertThat(r.body()).isEqualTo(bytes("doc " + i));
        assertThat(q.reader().get(r.address()).body())
            .as("its address is the stored record's")
            .isEqualTo(r.body());
      }
      long readsByReader = 500;
      assertThat(q.stats().blockReads()).isEqualTo(readsByReader);
    }
  }

  /**
   * A tailer that falls behind the writer's memory (or starts behind it) reads the files, then
   * takes records from memory again once it has caught up; every record comes once, in order, as
   * written (model: a list).
   */
  @Test
  void fallsBackToTheFilesAndReturnsToMemoryInOrder() throws Exception {
    long seed = io.docstore.io.TestSupport.seed("QueueTailerRing");
    java.util.Random rnd = new java.util.Random(seed);
    QueueOptions o =
        QueueOptions.builder()
            .blockSize(512)
            .segmentSize(64 << 10)
            .syncPolicy(SyncPolicy.NONE)
            .build();
    java.util.List<byte[]> model = new java.util.ArrayList<>();
    try (DocQueue q = DocQueue.open(dir, o);
        QueueTailer t = q.tailer(1)) {
      long next = 1;
      for (int round = 0; round < 40; round++) {
        // Bursts now and then larger than the writer keeps, so the tailer must go to the files.
        int n = rnd.nextInt(10) == 0 ? RecentRecords.CAPACITY + rnd.nextInt(1000) : rnd.nextInt(50);
        for (int i = 0; i < n; i++) {
          byte[] body = new byte[rnd.nextInt(100)];
          rnd.nextBytes(body);
          model.add(body);
          q.writer().append(model.size(), Op.PUT, 0, body);
        }
        q.writer().flush();
        int take =
            rnd.nextInt(3) == 0
                ? (int) (model.size() - next + 1)
                : rnd.nextInt((int) (model.size() - next + 2));
        for (int i = 0; i < take; i++) {
          QueueRecord r = t.poll();
          assertThat(r).as("seed %d sequence %d", seed, next).isNotNull();
          assertThat(r.sequence()).as("seed %d", seed).isEqualTo(next);
          assertThat(r.id()).isEqualTo(next);
          assertThat(r.body())
              .as("seed %d sequence %d", seed, next)
              .isEqualTo(model.get((int) next - 1));
          next++;
        }
      }
      assertThat(q.stats().segmentsSealed()).as("the test crosses segments").isPositive();
    }
  }

  @Test
  void theWriterKeepsAtMostItsBudgetOfRecentBodiesNewestFirstAndTheTailerReadsTheRestFromFiles()
      throws Exception {
    QueueOptions o = QueueOptions.builder().syncPolicy(SyncPolicy.NONE).build();
    java.util.Random rnd = new java.util.Random(7);
    java.util.List<byte[]> model = new java.util.ArrayList<>();
    int n = (int) (RecentRecords.MAX_BYTES / (60 << 10)) + 100;
    try (DocQueue q = DocQueue.open(dir, o);
        QueueTailer t = q.tailer(1)) {
      for (int i = 1; i <= n; i++) {
        byte[] body = new byte[60 << 10];
        rnd.nextBytes(body);
        model.add(body);
        q.writer().append(i, Op.PUT, 0, body);
      }
      q.writer().flush();
      RecentRecords recent = q.writer().recent;
      assertThat(recent.bytesKept())
          .isLessThanOrEqualTo(RecentRecords.MAX_BYTES)
          .isGreaterThan(RecentRecords.MAX_BYTES - (60 << 10));
      assertThat(recent.get(n)).as("the newest is kept").isNotNull();
      assertThat(recent.get(1)).as("the oldest made room").isNull();
      long readsBefore = q.stats().blockReads();
      for (int i = 1; i <= n; i++) {
        QueueRecord r = t.poll();
        assertThat(r).as("sequence %d", i).isNotNull();
        assertThat(r.sequence()).isEqualTo(i);
        assertThat(r.body()).as("sequence %d", i).isEqualTo(model.get(i - 1));
      }
      assertThat(q.stats().blockReads() - readsBefore)
          .as("records the ring let go are read from the files")
          .isPositive();
    }
  }
}
