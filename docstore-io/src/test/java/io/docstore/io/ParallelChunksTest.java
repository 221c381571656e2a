package io.docstore.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

/** Every index runs exactly once, on the caller and the helpers; failures reach the caller. */
class ParallelChunksTest {

  @Test
  void everyIndexRunsExactlyOnceAndHelpersTakeAShare() throws Exception {
    try (ParallelChunks p = new ParallelChunks("test-chunks", 2, 8, 4)) {
      for (int n : new int[] {0, 1, 7, 8, 9, 100, 10_000}) {
        AtomicIntegerArray runs = new AtomicIntegerArray(n);
        Set<String> threads = ConcurrentHashMap.newKeySet();
        p.run(
            n,
            i -> {
              runs.incrementAndGet(i);
              threads.add(Thread.currentThread().getName());
              if (n >= 10_000) {
                Thread.onSpinWait();
              }
            });
        for (int i = 0; i < n; i++) {
          assertThat(runs.get(i)).as("index %d of %d", i, n).isEqualTo(1);
        }
        if (n < 8) {
          assertThat(threads).as("a small batch stays on the caller").hasSizeLessThanOrEqualTo(1);
        }
      }
    }
  }

  @Test
  void concurrentCallersEachGetTheirWholeBatch() throws Exception {
    try (ParallelChunks p = new ParallelChunks("test-chunks", 1, 8, 16)) {
      ExecutorService callers = Executors.newFixedThreadPool(4);
      List<Future<long[]>> sums = new ArrayList<>();
      for (int c = 0; c < 4; c++) {
        sums.add(
            callers.submit(
                () -> {
                  long[] out = new long[5_000];
                  p.run(out.length, i -> out[i] = (long) i * i);
                  return out;
                }));
      }
      for (Future<long[]> f : sums) {
        long[] out = f.get();
        for (int i = 0; i < out.length; i++) {
          assertThat(out[i]).isEqualTo((long) i * i);
        }
      }
      callers.shutdown();
    }
  }

  @Test
  void anItemsExceptionReachesTheCallerAfterTheOtherItemsRan() {
    try (ParallelChunks p = new ParallelChunks("test-chunks", 1, 8, 4)) {
      AtomicIntegerArray runs = new AtomicIntegerArray(400);
      assertThatThrownBy(
              () ->
                  p.run(
                      400,
                      i -> {
                        runs.incrementAndGet(i);
                        if (i == 133) {
                          throw new IllegalStateException("item 133");
                        }
                      }))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("item 133");
      int ran = 0;
      for (int i = 0; i < 400; i++) {
        ran += runs.get(i);
      }
      // The failing chunk stops at its item; every other chunk ran whole.
      assertThat(ran).isGreaterThanOrEqualTo(400 - 3);
    }
  }

  @Test
  void onceClosedTheCallerDoesItAll() {
    ParallelChunks p = new ParallelChunks("test-chunks", 2, 8, 4);
    p.close();
    Set<String> threads = ConcurrentHashMap.newKeySet();
    int[] out = new int[100];
    p.run(
        100,
        i -> {
          out[i] = i + 1;
          threads.add(Thread.currentThread().getName());
        });
    assertThat(threads).containsExactly(Thread.currentThread().getName());
    assertThat(out[99]).isEqualTo(100);
  }
}
