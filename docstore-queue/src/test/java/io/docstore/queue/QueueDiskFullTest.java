package io.docstore.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.FaultInjectingFileSystem;
import io.docstore.io.NoSpaceException;
import io.docstore.io.SyncPolicy;
import io.docstore.io.TestSupport;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full disk hit at random points (block writes, seals, segment creation) under batches of
 * appends, against a model: the queue never needs a reopen, holds exactly the records of the
 * written blocks in sequence order, and keeps every acknowledged one across a power loss.
 */
class QueueDiskFullTest {

  @TempDir Path dir;

  private record Rec(long sequence, long id, byte[] body, long address) {}

  @Test
  void writesResumeAfterEveryFullDiskAndNothingAcknowledgedIsLost() throws Exception {
    long seed =
        TestSupport.seed(
            "QueueDiskFullTest.writesResumeAfterEveryFullDiskAndNothingAcknowledgedIsLost");
    Random rnd = new Random(seed);
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    QueueOptions o =
        QueueOptions.builder()
            .fileSystem(fs)
            .syncPolicy(SyncPolicy.ALWAYS)
            .blockSize(1024)
            .segmentSize(8 * 1024)
            .build();
    List<Rec> model = new ArrayList<>();
    long acknowledged = 0;
    int refusals = 0;
    int rounds = 60 * TestSupport.scale();
    DocQueue q = DocQueue.open(dir, o);
    try {
      for (int round = 0; round < rounds; round++) {
        if (rnd.nextInt(3) == 0) {
          fs.setSpaceLimit(rnd.nextInt(6_000));
        } else {
          fs.clearSpaceLimit();
        }
        for (int batch = 0; batch < 10; batch++) {
          List<Rec> pending = new ArrayList<>();
          long d = q.writer().discards();
          try {
            int n = 1 + rnd.nextInt(6);
            for (int i = 0; i < n; i++) {
              byte[] body = new byte[rnd.nextInt(rnd.nextInt(8) == 0 ? 1_500 : 200)];
              rnd.nextBytes(body);
              long id = rnd.nextInt(1 << 20);
              Appended a = q.writer().append(id, Op.PUT, i, body);
              pending.add(new Rec(a.sequence(), id, body, a.address()));
            }
            q.writer().awaitDurable(pending.get(pending.size() - 1).sequence(), d);
            model.addAll(pending);
            acknowledged = q.durableSequence();
          } catch (NoSpaceException e) {
            refusals++;
            // Records of the batch in blocks written before the failure stay (not acknowledged).
            long last = q.lastSequence();
            for (Rec r : pending) {
              if (r.sequence() <= last && r.sequence() == model.size() + 1) {
                model.add(r);
              }
            }
          }
          assertThat(q.lastSequence()).as("round %d", round).isEqualTo(model.size());
        }
      }
      fs.clearSpaceLimit();
      long d = q.writer().discards();
      Appended last = q.writer().append(1, Op.PUT, 0, new byte[] {1, 2, 3});
      q.writer().awaitDurable(last.sequence(), d);
      model.add(new Rec(last.sequence(), 1, new byte[] {1, 2, 3}, last.address()));
      acknowledged = last.sequence();
      check(q, model, model.size());
      System.out.println(
          "QueueDiskFullTest: "
              + rounds
              + " rounds, "
              + refusals
              + " refused batches, "
              + model.size()
              + " records, "
              + q.stats().segmentsSealed()
              + " segments sealed");
      assertThat(refusals).isPositive();
    } finally {
      fs.crash();
      try {
        q.close();
      } catch (java.io.IOException expectedAfterCrash) {
        // handles died in the crash
      }
    }
    try (DocQueue again = DocQueue.open(dir, o)) {
      assertThat(again.lastSequence()).isEqualTo(acknowledged);
      check(again, model, acknowledged);
    }
  }

  private static void check(DocQueue q, List<Rec> model, long through) throws Exception {
    try (QueueTailer t = q.tailer(1)) {
      for (int s = 1; s <= through; s++) {
        QueueRecord r = t.poll();
        Rec e = model.get(s - 1);
        assertThat(r.sequence()).isEqualTo(s);
        assertThat(r.id()).isEqualTo(e.id());
        assertThat(Arrays.equals(r.body(), e.body())).as("body of %d", s).isTrue();
        assertThat(r.address()).isEqualTo(e.address());
        assertThat(q.reader().get(e.address()).body()).isEqualTo(e.body());
      }
      assertThat(t.poll()).isNull();
    }
  }
}
