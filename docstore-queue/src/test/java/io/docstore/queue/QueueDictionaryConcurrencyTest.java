package io.docstore.queue;

import static io.docstore.queue.V3Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.ColdReads;
import io.docstore.io.TestSupport;
import io.docstore.queue.tools.QueueVerifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Readers by address (through the mapping and positionally) and a tailer running while the writer
 * trains the dictionary, seals the segment early, writes dictionary blocks into new segments and
 * compresses records with it: every record each of them sees is the one appended.
 */
class QueueDictionaryConcurrencyTest {

  @TempDir Path dir;

  /**
   * The body of the record with sequence {@code seq}: a function of it, so that a reader can check
   * any record.
   */
  private static byte[] body(long seq) {
    Random r = new Random(seq);
    return switch ((int) (seq % 10)) {
      case 3 -> new byte[0];
      case 7 -> noise(r, 50 + r.nextInt(1500));
      default -> json(r, 50 + r.nextInt(r.nextInt(4) == 0 ? 4000 : 1200));
    };
  }

  @Test
  void readersAndATailerSeeEveryRecordWhileTheDictionaryEngagesAndSegmentsRoll() throws Exception {
    long seed = TestSupport.seed("QueueDictionaryConcurrencyTest");
    int records = 4000;
    AtomicLongArray addresses = new AtomicLongArray(records + 1);
    AtomicBoolean done = new AtomicBoolean();
    QueueOptions o = options().segmentSize(48 * 1024).build();
    try (DocQueue q = DocQueue.open(dir, o)) {
      ExecutorService pool = Executors.newFixedThreadPool(4);
      try {
        Future<Integer> tailed =
            pool.submit(
                () -> {
                  int n = 0;
                  try (QueueTailer t = q.tailer(1)) {
                    while (n < records) {
                      QueueRecord r = t.next(30, TimeUnit.SECONDS);
                      assertThat(r).as("seed %d: tailer after %d", seed, n).isNotNull();
                      assertThat(r.sequence()).isEqualTo(n + 1);
                      assertThat(r.id()).isEqualTo(r.sequence());
                      assertThat(r.body())
                          .as("seed %d: tailed sequence %d", seed, r.sequence())
                          .isEqualTo(body(r.sequence()));
                      n++;
                    }
                  }
                  return n;
                });
        List<Future<Long>> readers = new ArrayList<>();
        for (int k = 0; k < 2; k++) {
          boolean positional = k == 1;
          Random rnd = new Random(seed + k);
          readers.add(
              pool.submit(
                  () -> {
                    long reads = 0;
                    // Positional: after its first read, judged cold (slow and faulting), every read
                    // of this
                    // reader goes down the positional path.
                    AtomicLong faults = new AtomicLong();
                    QueueReader reader =
                        positional
                            ? q.reader(
                                new ColdReads(-1, Integer.MAX_VALUE, 1, faults::incrementAndGet))
                            : q.reader();
                    while (!done.get()) {
                      long last = q.lastSequence();
                      if (last == 0) {
                        Thread.onSpinWait();
                        continue;
                      }
                      // Mostly the newest records (blocks just written), some anywhere.
                      long seq =
                          rnd.nextBoolean()
                              ? Math.max(1, last - rnd.nextInt(50))
                              : 1 + (long) (rnd.nextDouble() * last);
                      long address = addresses.get((int) seq);
                      if (address == 0) {
                        continue; // written inside append(), before the writer thread stored its
                        // address
                      }
                      QueueRecord r = reader.get(address);
                      assertThat(r.sequence()).as("seed %d", seed).isEqualTo(seq);
                      assertThat(r.body())
                          .as("seed %d: read sequence %d", seed, seq)
                          .isEqualTo(body(seq));
                      reads++;
                    }
                    return reads;
                  }));
        }
        Random rnd = new Random(seed);
        for (long seq = 1; seq <= records; seq++) {
          Appended a = q.writer().append(seq, seq % 10 == 3 ? Op.DELETE : Op.PUT, seq, body(seq));
          assertThat(a.sequence()).isEqualTo(seq);
          addresses.set((int) seq, a.address());
          if (rnd.nextInt(20) == 0) {
            q.writer().flush();
          }
        }
        q.writer().flush();
        assertThat(tailed.get(60, TimeUnit.SECONDS)).isEqualTo(records);
        done.set(true);
        for (Future<Long> f : readers) {
          assertThat(f.get(60, TimeUnit.SECONDS)).isGreaterThan(100);
        }
      } finally {
        done.set(true);
        pool.shutdownNow();
      }
    }
    assertThat(allBlocks(dir).stream().filter(Block::dictionary).count()).isGreaterThan(3);
    assertThat(allBlocks(dir).stream().filter(Block::zstd).count()).isGreaterThan(50);
    assertThat(QueueVerifier.verify(dir)).isEmpty();
  }
}
