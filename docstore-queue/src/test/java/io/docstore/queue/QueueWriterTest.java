package io.docstore.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.io.FaultInjectingFileSystem;
import io.docstore.io.SyncPolicy;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QueueWriterTest {

  @TempDir
  Path dir;

  @Test
  void intervalPolicyAcknowledgesAfterThePeriodicFsync() throws Exception {
    try (Queue q = Queue.open(dir, QueueOptions.builder().syncPolicy(SyncPolicy.interval(5)).build())) {
      Appended a = q.writer().append(1, Op.PUT, 0, new byte[10]);
      q.writer().awaitDurable(a.sequence());
      assertThat(q.durableSequence()).isGreaterThanOrEqualTo(a.sequence());
    }
  }

  @Test
  void noneNeverWaitsButSyncForces() throws Exception {
    try (Queue q = Queue.open(dir, QueueOptions.builder().syncPolicy(SyncPolicy.NONE).build())) {
      Appended a = q.writer().append(1, Op.PUT, 0, new byte[10]);
      q.writer().awaitDurable(a.sequence());
      assertThat(q.lastSequence()).isEqualTo(1);
      assertThat(q.durableSequence()).isZero();
      q.writer().sync();
      assertThat(q.durableSequence()).isEqualTo(1);
    }
  }

  @Test
  void oversizedRecordGetsABlockOfItsOwn() throws Exception {
    try (Queue q = Queue.open(dir, QueueOptions.builder().syncPolicy(SyncPolicy.NONE).blockSize(1024).build())) {
      q.writer().append(1, Op.PUT, 0, new byte[10]);
      Appended big = q.writer().append(2, Op.PUT, 0, new byte[5000]);
      Appended small = q.writer().append(3, Op.PUT, 0, new byte[10]);
      q.writer().flush();
      assertThat(q.stats().blocks()).isEqualTo(3);
      assertThat(q.reader().get(big.address()).body()).hasSize(5000);
      assertThat(q.reader().get(small.address()).id()).isEqualTo(3);
    }
  }

  @Test
  void aFullBlockIsWrittenWithoutAFlush() throws Exception {
    try (Queue q = Queue.open(dir, QueueOptions.builder().syncPolicy(SyncPolicy.NONE).blockSize(256).build())) {
      for (int i = 0; i < 20; i++) {
        q.writer().append(i, Op.PUT, 0, new byte[40]);
      }
      assertThat(q.lastSequence()).isGreaterThan(0);
      assertThat(q.stats().appends()).isEqualTo(20);
      assertThat(q.stats().bodyBytes()).isEqualTo(800);
    }
  }

  @Test
  void aFailedWriteIsSticky() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    Queue q = Queue.open(dir, QueueOptions.builder().fileSystem(fs).syncPolicy(SyncPolicy.ALWAYS).build());
    Appended a = q.writer().append(1, Op.PUT, 0, new byte[10]);
    q.writer().awaitDurable(a.sequence());
    fs.failAfter(FaultInjectingFileSystem.Op.WRITE, 0);
    q.writer().append(2, Op.PUT, 0, new byte[10]);
    assertThatThrownBy(q.writer()::flush).isInstanceOf(IOException.class).hasMessageContaining("injected");
    fs.clearFaults();
    assertThatThrownBy(() -> q.writer().append(3, Op.PUT, 0, new byte[1])).hasMessageContaining("earlier write failed");
    q.close();
    assertThatThrownBy(() -> q.writer().append(3, Op.PUT, 0, new byte[1])).isInstanceOf(IOException.class);
    try (Queue again = Queue.open(dir, QueueOptions.builder().fileSystem(fs).build())) {
      assertThat(again.lastSequence()).isEqualTo(1);
    }
  }

  @Test
  void aFullDiskLeavesATornTailThatTheNextOpenCuts() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    QueueOptions o = QueueOptions.builder().fileSystem(fs).syncPolicy(SyncPolicy.ALWAYS).blockSize(1024).build();
    long acknowledged = 0;
    try (Queue q = Queue.open(dir, o)) {
      fs.setSpaceLimit(10_000);
      byte[] body = new byte[300];
      new java.util.Random(1).nextBytes(body);
      assertThatThrownBy(() -> {
        while (true) {
          Appended a = q.writer().append(1, Op.PUT, 0, body);
          q.writer().awaitDurable(a.sequence());
        }
      }).isInstanceOf(IOException.class).hasMessageContaining("No space left");
      acknowledged = q.durableSequence();
      fs.clearSpaceLimit();
    }
    try (Queue q = Queue.open(dir, o)) {
      assertThat(q.stats().tornTailBytesDropped()).isPositive();
      assertThat(q.lastSequence()).isEqualTo(acknowledged);
      Appended next = q.writer().append(2, Op.PUT, 0, new byte[] {7});
      q.writer().awaitDurable(next.sequence());
      assertThat(q.reader().get(next.address()).body()).containsExactly(7);
    }
  }
}
