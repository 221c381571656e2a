package io.docstore.queue;

import static io.docstore.queue.V3Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.TestSupport;
import io.docstore.queue.block.RecordDictionary;
import io.docstore.queue.tools.QueueVerifier;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Segment format 3 against a model: random appends (JSON of 50 B to 4 KB, incompressible bytes,
 * empty PUTs, DELETEs), flushes, bulk loads and reopens (with and without mapped reads, with and
 * without the block cache, now and then with the dictionary turned off). After each step every
 * record written so far reads back by address and in order through a tailer; at the end zstd blocks
 * were written, every segment holding them starts with the dictionary they name (the one dictionary
 * the queue trained, if it was never turned off), and the verifier finds nothing.
 */
class QueueDictionaryRandomizedTest {

  @TempDir Path dir;

  /**
   * Chosen once per run: segments of 256 KiB (as in production, relatively) or small ones that roll
   * often.
   */
  private long segmentSize;

  private int dictionaryBytes;
  private int samples;

  /** Whether some open had the dictionary turned off (a configuration change between runs). */
  private boolean offOnce;

  private int opens;

  private QueueOptions options(Random rnd) {
    boolean off = opens++ > 0 && rnd.nextInt(8) == 0;
    offOnce |= off;
    return V3Fixtures.options()
        .segmentSize(segmentSize)
        .dictionaryBytes(off ? 0 : dictionaryBytes)
        .dictionarySamples(samples)
        .blockSize(new int[] {1024, 4096, 8192, 16384}[rnd.nextInt(4)])
        .mappedReads(rnd.nextBoolean())
        .blockCacheBytes(rnd.nextBoolean() ? 0 : 1 << 20)
        .build();
  }

  @Test
  void readsBackWhatWasAppendedAcrossFlushesBulkLoadsAndReopens() throws Exception {
    long seed = TestSupport.seed("QueueDictionaryRandomizedTest");
    String ctx = "seed " + seed + " (-Ddocstore.test.seed=" + seed + ")";
    Random rnd = new Random(seed);
    segmentSize = new long[] {256 * 1024, 64 * 1024, 24 * 1024}[rnd.nextInt(3)];
    dictionaryBytes = rnd.nextInt(3) == 0 ? 1024 : 4096;
    samples = rnd.nextInt(3) == 0 ? 30 + rnd.nextInt(50) : 50;
    ctx +=
        ", segmentSize "
            + segmentSize
            + ", dictionaryBytes "
            + dictionaryBytes
            + ", samples "
            + samples;
    List<Expected> model = new ArrayList<>();
    int steps = 24 * TestSupport.scale();
    int bulkStep = 1 + rnd.nextInt(steps - 2);
    DocQueue q = DocQueue.open(dir, options(rnd));
    try {
      for (int step = 0; step < steps; step++) {
        String at = ctx + ", step " + step;
        if (step == bulkStep || rnd.nextInt(10) == 0) {
          bulk(q, rnd, model, at);
        } else {
          int n = 20 + rnd.nextInt(250);
          for (int i = 0; i < n; i++) {
            model.add(appendRandom(q, rnd, model.size() + 1));
            if (rnd.nextInt(40) == 0) {
              q.writer().flush();
            }
          }
          q.writer().flush();
        }
        checkAll(q, model, 1 + rnd.nextInt(model.size() + 1), at);
        if (rnd.nextInt(4) == 0) {
          q.close();
          q = DocQueue.open(dir, options(rnd));
          checkAll(q, model, 1, at + " after reopen");
        }
      }
    } finally {
      q.close();
    }
    assertThat(QueueVerifier.verify(dir)).as(ctx).isEmpty();
    try (DocQueue again = DocQueue.open(dir, V3Fixtures.options().mappedReads(false).build())) {
      checkAll(again, model, 1, ctx + ", final reopen, positional reads");
    }

    List<Block> blocks = allBlocks(dir);
    assertThat(blocks.stream().filter(Block::zstd).count())
        .as(ctx + ": blocks compressed with the dictionary")
        .isGreaterThan(offOnce ? 0 : 20);
    // Records really stored compressed in them, and the model's records are all there.
    long compressed = 0;
    for (Block b : blocks) {
      for (int i = 0; b.zstd() && i < b.count(); i++) {
        compressed += stored(b, i).compressed() ? 1 : 0;
      }
    }
    // About three in four bodies are JSON; they all compress once the dictionary is in use.
    assertThat(compressed)
        .as(ctx + ": records stored compressed")
        .isGreaterThan(offOnce ? 0 : model.size() / 3);
    assertThat(blocks.stream().mapToLong(Block::count).sum()).as(ctx).isEqualTo(model.size());
    // Every segment with zstd blocks starts with the dictionary they name; and unless the
    // dictionary
    // was off in some run (after which a newest segment without one makes the next run train
    // again),
    // it is the one dictionary the queue trained.
    Map<Path, Block> firstBlocks = new HashMap<>();
    for (Path p : segments(dir)) {
      List<Block> bs = blocks(p);
      if (!bs.isEmpty()) {
        firstBlocks.put(p, bs.get(0));
      }
    }
    byte[] dictionary = null;
    for (Block b : blocks) {
      if (b.dictionary()) {
        assertThat(b.offset()).isEqualTo(FIRST_BLOCK);
        byte[] d = dictionaryBytes(b);
        if (dictionary == null) {
          dictionary = d;
        }
        if (!offOnce) {
          assertThat(Arrays.equals(d, dictionary))
              .as(ctx + ": dictionary of " + b.file() + " is the first one")
              .isTrue();
        }
      }
      if (b.zstd()) {
        Block first = firstBlocks.get(b.file());
        assertThat(first.dictionary())
            .as(ctx + ": " + b.file() + " holds zstd blocks and starts with a dictionary")
            .isTrue();
        byte[] own = dictionaryBytes(first);
        assertThat(b.dictId()).as(ctx).isEqualTo(RecordDictionary.idOf(own, 0, own.length));
      }
    }
  }

  /**
   * A bulk load of a few hundred records on 1 to 3 threads; the sink's addresses go to the model.
   */
  private static void bulk(DocQueue q, Random rnd, List<Expected> model, String ctx)
      throws IOException {
    List<Expected> added = new ArrayList<>();
    List<long[]> told = new ArrayList<>();
    long first = model.size() + 1;
    BulkAppender bulk =
        q.bulkAppender(
            1 + rnd.nextInt(3), (seq, id, op, address) -> told.add(new long[] {seq, address}));
    int n = 100 + rnd.nextInt(700);
    for (int i = 0; i < n; i++) {
      int dice = rnd.nextInt(100);
      Op op = dice < 8 ? Op.DELETE : Op.PUT;
      byte[] body =
          op == Op.DELETE || dice < 14
              ? new byte[0]
              : dice < 22 ? noise(rnd, 50 + rnd.nextInt(2000)) : json(rnd);
      long id = rnd.nextInt(100_000);
      long acceptedAt = rnd.nextLong();
      long seq = bulk.add(id, op, acceptedAt, body);
      assertThat(seq).as(ctx).isEqualTo(first + i);
      added.add(new Expected(seq, id, op, acceptedAt, body, 0));
    }
    BulkAppender.Result r = bulk.finish();
    assertThat(r.firstSequence()).as(ctx).isEqualTo(first);
    assertThat(r.lastSequence()).as(ctx).isEqualTo(first + n - 1);
    assertThat(told).as(ctx).hasSize(n);
    for (int i = 0; i < n; i++) {
      Expected e = added.get(i);
      assertThat(told.get(i)[0]).as(ctx).isEqualTo(e.sequence());
      model.add(
          new Expected(e.sequence(), e.id(), e.op(), e.acceptedAt(), e.body(), told.get(i)[1]));
    }
  }
}
