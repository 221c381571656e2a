package io.docstore.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.SyncPolicy;
import io.docstore.io.TestSupport;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Readers hammer {@code get} and {@code scan} while one writer fills small memory tables, so
 * flushes and compactions run all the time. Every id the writer acknowledged must read back with
 * its exact value, and deleted ids must never read as a value.
 */
class ConcurrencyTest {

  @TempDir Path dir;

  /** Value of id i: never 0 and distinct per id, so a misplaced value is caught. */
  private static long value(long id) {
    return id * 7 + 3;
  }

  @Test
  @Timeout(value = 15, unit = TimeUnit.MINUTES)
  void readersNeverSeeAWrongValueOrLoseAnAcknowledgedId() throws Exception {
    long seed = TestSupport.seed("ConcurrencyTest");
    IndexOptions opts =
        IndexOptions.builder()
            .syncPolicy(SyncPolicy.NONE)
            .memTableBytes(16 * 1024)
            .bloomMemoryBytes(64 * 1024)
            .bloomRebalanceMillis(5)
            .pageCacheBytes(16 * 4096)
            .build();
    int writes = 150_000 * TestSupport.scale();
    AtomicLong acked = new AtomicLong(-1);
    ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
    try (LsmIndex index = LsmIndex.open(dir, opts)) {
      List<Thread> readers = new ArrayList<>();
      for (int r = 0; r < 2; r++) {
        long readerSeed = seed + r;
        boolean scanner = r == 1;
        Thread t =
            new Thread(
                () -> {
                  SplittableRandom rnd = new SplittableRandom(readerSeed);
                  try {
                    while (acked.get() < writes - 1) {
                      long top = acked.get();
                      if (top < 0 || top == Long.MAX_VALUE) {
                        // Not started, or the writer finished (or a reader failed) since the loop's
                        // check:
                        // top + 1 would overflow into a negative bound.
                        continue;
                      }
                      if (scanner && rnd.nextInt(2000) == 0) {
                        long from = rnd.nextLong(top + 1);
                        try (IndexCursor c = index.scan(from)) {
                          long expect = from;
                          while (expect <= top && c.next()) {
                            if (expect % 10 == 9) {
                              expect++;
                            }
                            assertThat(c.id()).isEqualTo(expect);
                            assertThat(c.value()).isEqualTo(value(expect));
                            expect++;
                          }
                        }
                        continue;
                      }
                      long id = rnd.nextLong(top + 1);
                      long v = index.get(id);
                      if (id % 10 == 9) {
                        assertThat(v)
                            .as("deleted id %d", id)
                            .isIn(LsmIndex.DELETED, LsmIndex.ABSENT);
                      } else {
                        assertThat(v)
                            .as("acknowledged id %d (acked up to %d)", id, top)
                            .isEqualTo(value(id));
                      }
                    }
                  } catch (Throwable e) {
                    errors.add(e);
                    acked.set(Long.MAX_VALUE);
                  }
                },
                "reader-" + r);
        t.start();
        readers.add(t);
      }
      for (long id = 0; id < writes && errors.isEmpty(); id++) {
        index.put(id, value(id));
        if (id % 10 == 9) {
          index.delete(id);
        }
        acked.set(id);
      }
      acked.set(Long.MAX_VALUE);
      for (Thread t : readers) {
        t.join();
      }
      assertThat(errors).as("seed %d", seed).isEmpty();
      assertThat(index.stats().flushes()).isGreaterThan(10);
      assertThat(index.stats().compactions()).isPositive();
    }
  }
}
