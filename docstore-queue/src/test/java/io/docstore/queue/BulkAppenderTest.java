package io.docstore.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.io.FaultInjectingFileSystem;
import io.docstore.io.SyncPolicy;
import io.docstore.io.TestSupport;
import io.docstore.queue.format.SegmentFormat;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link BulkAppender}: records added in bulk (blocks encoded on several threads, segments rolling)
 * read back in order at the addresses the sink was told, between ordinary appends; after a power
 * loss before {@code finish} the queue holds a prefix, after {@code finish} all of it.
 */
class BulkAppenderTest {

  @TempDir Path dir;

  record Rec(long sequence, long id, Op op, byte[] body, long address) {}

  private static byte[] body(SplittableRandom rnd) {
    byte[] b = new byte[rnd.nextInt(rnd.nextInt(10) == 0 ? 3_000 : 400)];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) ('a' + rnd.nextInt(rnd.nextBoolean() ? 3 : 26));
    }
    return b;
  }

  @Test
  void bulkRecordsReadBackInOrderBetweenOrdinaryAppends() throws Exception {
    long seed = TestSupport.seed("BulkAppenderTest");
    SplittableRandom rnd = new SplittableRandom(seed);
    // Background fsyncs every few blocks too, so they run while blocks are written and segments
    // roll.
    QueueOptions options =
        QueueOptions.builder()
            .syncPolicy(SyncPolicy.NONE)
            .blockSize(1024)
            .segmentSize(64 * 1024)
            .bytesPerSync(1 + rnd.nextInt(20_000))
            .build();
    List<Rec> model = new ArrayList<>();
    try (DocQueue q = DocQueue.open(dir, options)) {
      for (int round = 0; round < 6; round++) {
        for (int i = rnd.nextInt(30); i > 0; i--) {
          byte[] b = body(rnd);
          long id = rnd.nextLong(1_000);
          Appended a = q.writer().append(id, Op.PUT, 7, b);
          model.add(new Rec(a.sequence(), id, Op.PUT, b, a.address()));
        }
        List<Rec> told = new ArrayList<>();
        List<Rec> added = new ArrayList<>();
        int threads = 1 + rnd.nextInt(4);
        BulkAppender bulk =
            q.bulkAppender(
                threads, (seq, id, op, address) -> told.add(new Rec(seq, id, op, null, address)));
        int n = rnd.nextInt(3_000);
        for (int i = 0; i < n; i++) {
          long id = rnd.nextLong(1_000_000);
          boolean delete = rnd.nextInt(20) == 0;
          byte[] b = delete ? new byte[0] : body(rnd);
          int pad = rnd.nextInt(3);
          byte[] padded = new byte[b.length + 2 * pad];
          System.arraycopy(b, 0, padded, pad, b.length);
          long seq = bulk.add(id, delete ? Op.DELETE : Op.PUT, 9, padded, pad, b.length);
          added.add(new Rec(seq, id, delete ? Op.DELETE : Op.PUT, b, 0));
        }
        BulkAppender.Result r = bulk.finish();
        assertThat(r.records()).isEqualTo(n);
        assertThat(told).hasSize(n);
        for (int i = 0; i < n; i++) {
          Rec a = added.get(i);
          Rec t = told.get(i);
          assertThat(t.sequence()).as("seed %d", seed).isEqualTo(a.sequence());
          assertThat(t.id()).isEqualTo(a.id());
          assertThat(t.op()).isEqualTo(a.op());
          model.add(new Rec(a.sequence(), a.id(), a.op(), a.body(), t.address()));
        }
        assertThat(q.durableSequence()).isEqualTo(q.lastSequence());
      }
      Appended last = q.writer().append(5, Op.PUT, 1, new byte[] {1});
      model.add(new Rec(last.sequence(), 5, Op.PUT, new byte[] {1}, last.address()));
      q.writer().flush();
      check(q, model, seed);
      // A bulk write of many blocks still starts no block past the segment size (block offsets must
      // fit an address): a segment ends at most one block (here under 4 KiB: bodies of at most
      // 3,000
      // bytes) and its footer beyond it.
      try (var files = java.nio.file.Files.list(dir)) {
        for (java.nio.file.Path f : files.toList()) {
          assertThat(java.nio.file.Files.size(f))
              .as("%s, seed %d", f, seed)
              .isLessThanOrEqualTo(options.segmentSize() + 4096 + SegmentFormat.FOOTER_LENGTH);
        }
      }
    }
    try (DocQueue q = DocQueue.open(dir, options)) {
      check(q, model, seed);
    }
  }

  private static void check(DocQueue q, List<Rec> model, long seed) throws IOException {
    try (QueueTailer t = q.tailer(1)) {
      for (int i = 0; i < model.size(); i++) {
        Rec e = model.get(i);
        QueueRecord r = t.poll();
        assertThat(r).as("record %d, seed %d", i + 1, seed).isNotNull();
        assertThat(r.sequence()).isEqualTo(i + 1).isEqualTo(e.sequence());
        assertThat(r.id()).isEqualTo(e.id());
        assertThat(r.op()).isEqualTo(e.op());
        assertThat(r.address()).isEqualTo(e.address());
        assertThat(r.body()).isEqualTo(e.body());
        assertThat(q.reader().get(e.address()).sequence()).isEqualTo(e.sequence());
      }
      assertThat(t.poll()).isNull();
    }
  }

  @Test
  void holdsTheWriterAndRejectsBadRecords() throws Exception {
    try (DocQueue q =
        DocQueue.open(
            dir, QueueOptions.builder().syncPolicy(SyncPolicy.NONE).maxBodyBytes(1000).build())) {
      try (BulkAppender bulk = q.bulkAppender(2, (s, id, op, a) -> {})) {
        assertThatThrownBy(() -> bulk.add(-1, Op.PUT, 0, new byte[1]))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> bulk.add(1, Op.PUT, 0, new byte[1001]))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> bulk.add(1, Op.DELETE, 0, new byte[1]))
            .isInstanceOf(IllegalArgumentException.class);
        assertThat(bulk.add(1, Op.PUT, 0, new byte[1])).isEqualTo(1);
      }
      assertThat(q.writer().append(2, Op.PUT, 0, new byte[1]).sequence()).isEqualTo(2);
    }
  }

  /**
   * Power loss during a bulk load (before finish): the queue recovers a prefix; after finish:
   * everything.
   */
  @Test
  void powerLossLeavesAPrefixAndFinishMakesItDurable() throws Exception {
    long seed = TestSupport.seed("BulkAppenderTest.powerLoss");
    SplittableRandom rnd = new SplittableRandom(seed);
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    QueueOptions options =
        QueueOptions.builder()
            .fileSystem(fs)
            .syncPolicy(SyncPolicy.ALWAYS)
            .blockSize(600)
            .segmentSize(8_000)
            .bytesPerSync(1 + rnd.nextInt(5_000))
            .build();
    List<byte[]> bodies = new ArrayList<>();
    long durable = 0;
    for (int round = 0; round < 20; round++) {
      DocQueue q = DocQueue.open(dir, options);
      long recovered = q.lastSequence();
      assertThat(recovered)
          .as("round %d, seed %d", round, seed)
          .isBetween(durable, (long) bodies.size());
      bodies.subList((int) recovered, bodies.size()).clear();
      try (QueueTailer t = q.tailer(1)) {
        for (int s = 1; s <= recovered; s++) {
          assertThat(t.poll().body())
              .as("seq %d round %d seed %d", s, round, seed)
              .isEqualTo(bodies.get(s - 1));
        }
      }
      BulkAppender bulk = q.bulkAppender(2, (s, id, op, a) -> {});
      int n = rnd.nextInt(200);
      for (int i = 0; i < n; i++) {
        byte[] b = body(rnd);
        bulk.add(i, Op.PUT, 0, b);
        bodies.add(b);
      }
      if (rnd.nextBoolean()) {
        bulk.finish();
        durable = bodies.size();
      } else {
        bulk.close();
      }
      fs.crash();
      try {
        q.close();
      } catch (IOException expected) {
        // files were closed under it
      }
    }
  }
}
