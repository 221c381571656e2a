package io.docstore.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.io.FaultInjectingFileSystem;
import io.docstore.io.NoSpaceException;
import io.docstore.io.SyncPolicy;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QueueWriterTest {

  @TempDir Path dir;

  @Test
  void intervalPolicyAcknowledgesAfterThePeriodicFsync() throws Exception {
    try (DocQueue q =
        DocQueue.open(dir, QueueOptions.builder().syncPolicy(SyncPolicy.interval(5)).build())) {
      Appended a = q.writer().append(1, Op.PUT, 0, new byte[10]);
      q.writer().awaitDurable(a.sequence());
      assertThat(q.durableSequence()).isGreaterThanOrEqualTo(a.sequence());
    }
  }

  /**
   * Under sync none, writes past {@code bytesPerSync} are fsynced in the background: they survive a
   * power loss although nobody asked for durability; with bytesPerSync 0 nothing is.
   */
  @Test
  void bytesPerSyncMakesWrittenBlocksDurableInTheBackground() throws Exception {
    for (long bytesPerSync : new long[] {0, 4096}) {
      Path d = dir.resolve("b" + bytesPerSync);
      FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
      QueueOptions options =
          QueueOptions.builder()
              .fileSystem(fs)
              .syncPolicy(SyncPolicy.NONE)
              .blockSize(1024)
              .bytesPerSync(bytesPerSync)
              .build();
      DocQueue q = DocQueue.open(d, options);
      java.util.Random rnd = new java.util.Random(bytesPerSync);
      for (int i = 0; i < 100; i++) {
        byte[] body = new byte[200];
        rnd.nextBytes(
            body); // incompressible: about 900 bytes a block, a background fsync every 5 blocks
        q.writer().append(i, Op.PUT, 0, body);
      }
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (bytesPerSync > 0 && q.durableSequence() == 0 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      long durable = q.durableSequence();
      fs.crash();
      try {
        q.close();
      } catch (IOException expected) {
        // files were closed under it
      }
      try (DocQueue reopened = DocQueue.open(d, options)) {
        if (bytesPerSync == 0) {
          assertThat(durable).isZero();
          assertThat(reopened.lastSequence()).isZero();
        } else {
          assertThat(durable).isPositive();
          assertThat(reopened.lastSequence()).isGreaterThanOrEqualTo(durable);
        }
      }
    }
  }

  @Test
  void noneNeverWaitsButSyncForces() throws Exception {
    try (DocQueue q =
        DocQueue.open(dir, QueueOptions.builder().syncPolicy(SyncPolicy.NONE).build())) {
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
    try (DocQueue q =
        DocQueue.open(
            dir, QueueOptions.builder().syncPolicy(SyncPolicy.NONE).blockSize(1024).build())) {
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
    try (DocQueue q =
        DocQueue.open(
            dir, QueueOptions.builder().syncPolicy(SyncPolicy.NONE).blockSize(256).build())) {
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
    DocQueue q =
        DocQueue.open(
            dir, QueueOptions.builder().fileSystem(fs).syncPolicy(SyncPolicy.ALWAYS).build());
    Appended a = q.writer().append(1, Op.PUT, 0, new byte[10]);
    q.writer().awaitDurable(a.sequence());
    fs.failAfter(FaultInjectingFileSystem.Op.WRITE, 0);
    q.writer().append(2, Op.PUT, 0, new byte[10]);
    assertThatThrownBy(q.writer()::flush)
        .isInstanceOf(IOException.class)
        .hasMessageContaining("injected");
    fs.clearFaults();
    assertThatThrownBy(() -> q.writer().append(3, Op.PUT, 0, new byte[1]))
        .hasMessageContaining("earlier write failed");
    q.close();
    assertThatThrownBy(() -> q.writer().append(3, Op.PUT, 0, new byte[1]))
        .isInstanceOf(IOException.class);
    try (DocQueue again = DocQueue.open(dir, QueueOptions.builder().fileSystem(fs).build())) {
      assertThat(again.lastSequence()).isEqualTo(1);
    }
  }

  @Test
  void aFullDiskIsCutBackAndWritesResumeWithoutAReopen() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    QueueOptions o =
        QueueOptions.builder().fileSystem(fs).syncPolicy(SyncPolicy.ALWAYS).blockSize(1024).build();
    long acknowledged;
    try (DocQueue q = DocQueue.open(dir, o)) {
      fs.setSpaceLimit(10_000);
      byte[] body = new byte[300];
      new java.util.Random(1).nextBytes(body);
      assertThatThrownBy(
              () -> {
                while (true) {
                  long d = q.writer().discards();
                  Appended a = q.writer().append(1, Op.PUT, 0, body);
                  q.writer().awaitDurable(a.sequence(), d);
                }
              })
          .isInstanceOf(NoSpaceException.class)
          .hasMessageContaining("No space left");
      acknowledged = q.durableSequence();
      assertThat(q.lastSequence()).isEqualTo(acknowledged);
      assertThat(q.writer().discards()).isEqualTo(1);
      // still full: refused again, nothing half-written stays behind
      long d = q.writer().discards();
      Appended refused = q.writer().append(2, Op.PUT, 0, body);
      assertThat(refused.sequence()).isEqualTo(acknowledged + 1);
      assertThatThrownBy(() -> q.writer().awaitDurable(refused.sequence(), d))
          .isInstanceOf(NoSpaceException.class);
      fs.clearSpaceLimit();
      long d2 = q.writer().discards();
      Appended next = q.writer().append(3, Op.PUT, 0, new byte[] {7});
      assertThat(next.sequence())
          .as("the discarded sequences are handed out again")
          .isEqualTo(acknowledged + 1);
      q.writer().awaitDurable(next.sequence(), d2);
      assertThat(q.reader().get(next.address()).body()).containsExactly(7);
      acknowledged = next.sequence();
    }
    try (DocQueue q = DocQueue.open(dir, o)) {
      assertThat(q.stats().tornTailBytesDropped()).isZero();
      assertThat(q.lastSequence()).isEqualTo(acknowledged);
      try (QueueTailer t = q.tailer(1)) {
        for (long s = 1; s <= acknowledged; s++) {
          assertThat(t.poll().sequence()).isEqualTo(s);
        }
        assertThat(t.poll()).isNull();
      }
    }
  }

  @Test
  void aFailedFsyncStaysSticky() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    try (DocQueue q =
        DocQueue.open(
            dir, QueueOptions.builder().fileSystem(fs).syncPolicy(SyncPolicy.ALWAYS).build())) {
      fs.failAfter(FaultInjectingFileSystem.Op.FORCE, 0);
      Appended a = q.writer().append(1, Op.PUT, 0, new byte[10]);
      assertThatThrownBy(() -> q.writer().awaitDurable(a.sequence()))
          .isInstanceOf(IOException.class)
          .isNotInstanceOf(NoSpaceException.class);
      fs.clearFaults();
      Appended b = q.writer().append(2, Op.PUT, 0, new byte[10]);
      assertThatThrownBy(() -> q.writer().awaitDurable(b.sequence()))
          .hasMessageContaining("earlier fsync failed");
    } catch (IOException closeAfterFailedFsync) {
      // close does not fsync over a failed one either
    }
  }
}
