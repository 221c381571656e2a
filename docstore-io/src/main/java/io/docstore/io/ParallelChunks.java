package io.docstore.io;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;

/**
 * A loop over {@code [0, n)} shared by the calling thread and up to {@code helpers} threads of its
 * own (daemon, named {@code name-N}, made on first use and gone after a minute idle), in chunks
 * taken in turn: for per-item work of a batch that a writer would otherwise do alone (checking and
 * compressing documents). A batch smaller than {@code parallelFrom} runs on the calling thread
 * alone; so does everything once closed. The caller returns when every item is done; a helper's
 * exception is rethrown there, after the other chunks finished.
 *
 * <p>Thread-safe: several callers may share one (their chunks queue for the helpers; each caller
 * works on its own batch meanwhile).
 */
public final class ParallelChunks implements AutoCloseable {

  private final int helpers;
  private final int parallelFrom;
  private final int chunk;
  private final ThreadPoolExecutor pool;

  /**
   * @param helpers threads besides the caller (0: the caller alone)
   * @param parallelFrom the smallest batch shared with the helpers
   * @param chunk items a thread takes at a time
   */
  public ParallelChunks(String name, int helpers, int parallelFrom, int chunk) {
    this.helpers = Math.max(0, helpers);
    this.parallelFrom = Math.max(2, parallelFrom);
    this.chunk = Math.max(1, chunk);
    if (this.helpers == 0) {
      pool = null;
      return;
    }
    AtomicInteger n = new AtomicInteger();
    pool =
        new ThreadPoolExecutor(
            this.helpers,
            this.helpers,
            60,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, name + "-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    pool.allowCoreThreadTimeOut(true);
  }

  /** One helper per core but the caller's (none on one core). */
  public static int helpersForCores() {
    return Runtime.getRuntime().availableProcessors() - 1;
  }

  /**
   * Calls {@code each} once for every index of {@code [0, n)}, on this thread and the helpers.
   *
   * @throws RuntimeException the first one an item threw (the other items ran)
   */
  public void run(int n, IntConsumer each) {
    int chunks = (n + chunk - 1) / chunk;
    if (pool == null || n < parallelFrom) {
      for (int i = 0; i < n; i++) {
        each.accept(i);
      }
      return;
    }
    CountDownLatch left = new CountDownLatch(chunks);
    AtomicInteger next = new AtomicInteger();
    AtomicReference<RuntimeException> failed = new AtomicReference<>();
    Runnable work =
        () -> {
          int c;
          while ((c = next.getAndIncrement()) < chunks) {
            try {
              for (int i = c * chunk; i < Math.min(n, (c + 1) * chunk); i++) {
                each.accept(i);
              }
            } catch (RuntimeException e) {
              failed.compareAndSet(null, e);
            } finally {
              left.countDown();
            }
          }
        };
    for (int h = 0; h < Math.min(helpers, chunks - 1); h++) {
      try {
        pool.execute(work);
      } catch (RejectedExecutionException closed) {
        break; // the caller does it all
      }
    }
    work.run();
    boolean interrupted = false;
    while (true) {
      try {
        left.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true; // a helper may still be writing the caller's results
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    RuntimeException e = failed.get();
    if (e != null) {
      throw e;
    }
  }

  @Override
  public void close() {
    if (pool != null) {
      pool.shutdown();
    }
  }
}
