package io.docstore.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.SyncPolicy;
import io.docstore.io.TestSupport;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random appends (bodies of 0 bytes, small, exactly the block size, over it, the maximum), flushes,
 * syncs and reopens, checked against a list of what was appended: every address reads back, a
 * tailer from a random start returns exactly the model's suffix.
 */
class QueueRandomizedTest {

  @TempDir Path dir;

  record Expected(long id, Op op, long acceptedAt, byte[] body, long address) {}

  @Test
  void matchesModel() throws Exception {
    long seed = TestSupport.seed("QueueRandomizedTest.matchesModel");
    Random rnd = new Random(seed);
    int blockSize = 512 + rnd.nextInt(2048);
    int maxBody = blockSize * 3;
    QueueOptions options =
        QueueOptions.builder()
            .blockSize(blockSize)
            .segmentSize(8_000 + rnd.nextInt(40_000))
            .maxBodyBytes(maxBody)
            .syncPolicy(SyncPolicy.NONE)
            .blockCacheBytes(rnd.nextBoolean() ? 0 : 20_000)
            .build();
    List<Expected> model = new ArrayList<>();
    int rounds = 6 * TestSupport.scale();
    for (int round = 0; round < rounds; round++) {
      try (DocQueue q = DocQueue.open(dir, options)) {
        assertThat(q.lastSequence()).isEqualTo(model.size());
        int ops = 200 + rnd.nextInt(800);
        for (int i = 0; i < ops; i++) {
          int dice = rnd.nextInt(100);
          if (dice < 2) {
            q.writer().flush();
          } else if (dice < 3) {
            q.writer().sync();
          } else {
            Op op = rnd.nextInt(10) == 0 ? Op.DELETE : Op.PUT;
            byte[] body = op == Op.DELETE ? new byte[0] : randomBody(rnd, blockSize, maxBody);
            long id = rnd.nextInt(5) == 0 ? Long.MAX_VALUE - rnd.nextInt(3) : rnd.nextInt(1000);
            long at = rnd.nextLong();
            Appended a = q.writer().append(id, op, at, body);
            assertThat(a.sequence()).isEqualTo(model.size() + 1);
            assertThat(a.address()).isPositive();
            model.add(new Expected(id, op, at, body, a.address()));
          }
        }
        q.writer().flush();
        checkAll(q, model);
        long from = 1 + rnd.nextInt(model.size() + 1);
        try (QueueTailer t = q.tailer(from)) {
          for (long s = from; s <= model.size(); s++) {
            QueueRecord r = t.poll();
            check(r, s, model.get((int) s - 1));
          }
          assertThat(t.poll()).isNull();
        }
      }
    }
  }

  private static byte[] randomBody(Random rnd, int blockSize, int maxBody) {
    int len =
        switch (rnd.nextInt(12)) {
          case 0 -> 0;
          case 1 -> blockSize;
          case 2 -> blockSize + 1 + rnd.nextInt(blockSize);
          case 3 -> maxBody;
          default -> rnd.nextInt(200);
        };
    byte[] b = new byte[len];
    if (rnd.nextBoolean()) {
      rnd.nextBytes(b);
    } else {
      for (int i = 0; i < len; i++) {
        b[i] = (byte) ('a' + rnd.nextInt(4));
      }
    }
    return b;
  }

  private static void checkAll(DocQueue q, List<Expected> model) throws Exception {
    for (int i = 0; i < model.size(); i++) {
      Expected e = model.get(i);
      check(q.reader().get(e.address()), i + 1, e);
    }
  }

  private static void check(QueueRecord r, long sequence, Expected e) {
    assertThat(r).as("sequence %d", sequence).isNotNull();
    assertThat(r.sequence()).isEqualTo(sequence);
    assertThat(r.address()).isEqualTo(e.address());
    assertThat(r.id()).isEqualTo(e.id());
    assertThat(r.op()).isEqualTo(e.op());
    assertThat(r.acceptedAtMillis()).isEqualTo(e.acceptedAt());
    assertThat(r.body()).isEqualTo(e.body());
  }
}
