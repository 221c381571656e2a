package io.docstore.queue;

import io.docstore.queue.block.RecordDictionary;
import io.docstore.queue.block.StoredBody;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Compresses bodies ahead of their append, outside the queue writer's lock: on the calling thread,
 * helped for a batch of {@value #PARALLEL_FROM} bodies or more by up to {@code helpers} threads of
 * its own ({@value #THREAD}-N, daemon, made on first use). What it returns is only a head start: a
 * null, or a body compressed with a dictionary the writer no longer uses, is compressed at the
 * append as before. A failure of a helper leaves its bodies null; nothing waits on a lost task.
 *
 * <p>Thread-safe.
 */
final class Precompressor implements AutoCloseable {

  static final String THREAD = "docstore-compress";

  /** Batches at least this large are shared with the helpers. */
  static final int PARALLEL_FROM = 32;

  /** Bodies a thread takes at a time. */
  private static final int CHUNK = 16;

  private final int helpers;
  private final ExecutorService pool;

  /**
   * @param helpers threads that help the caller with large batches (0: the caller alone)
   */
  Precompressor(int helpers) {
    this.helpers = helpers;
    AtomicInteger n = new AtomicInteger();
    this.pool =
        helpers == 0
            ? null
            : new ThreadPoolExecutor(
                helpers,
                helpers,
                60,
                TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(),
                r -> {
                  Thread t = new Thread(r, THREAD + "-" + n.incrementAndGet());
                  t.setDaemon(true);
                  return t;
                });
    if (pool != null) {
      ((ThreadPoolExecutor) pool).allowCoreThreadTimeOut(true);
    }
  }

  /**
   * Each body of {@code bodies} as {@code d}'s records store it ({@link
   * RecordDictionary#compress}), at the same index; a null body, or any body when {@code d} is
   * null, gives null.
   */
  StoredBody[] compress(RecordDictionary d, List<byte[]> bodies) {
    int n = bodies.size();
    StoredBody[] out = new StoredBody[n];
    if (d == null) {
      return out;
    }
    int chunks = (n + CHUNK - 1) / CHUNK;
    if (pool == null || n < PARALLEL_FROM) {
      compressChunks(d, bodies, out, new AtomicInteger(), chunks, null);
      return out;
    }
    CountDownLatch left = new CountDownLatch(chunks);
    AtomicInteger next = new AtomicInteger();
    Runnable help = () -> compressChunks(d, bodies, out, next, chunks, left);
    for (int h = 0; h < Math.min(helpers, chunks - 1); h++) {
      try {
        pool.execute(help);
      } catch (RejectedExecutionException closed) {
        break; // the caller does it all
      }
    }
    help.run();
    try {
      left.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // what is not compressed yet is compressed at the append
    }
    return out;
  }

  /** Takes chunks until none is left; counts each one down on {@code left} (if any). */
  private static void compressChunks(
      RecordDictionary d,
      List<byte[]> bodies,
      StoredBody[] out,
      AtomicInteger next,
      int chunks,
      CountDownLatch left) {
    int c;
    while ((c = next.getAndIncrement()) < chunks) {
      try {
        for (int i = c * CHUNK; i < Math.min(bodies.size(), (c + 1) * CHUNK); i++) {
          byte[] b = bodies.get(i);
          if (b != null) {
            out[i] = d.compress(b);
          }
        }
      } catch (RuntimeException e) {
        // left null: compressed at the append, where a real problem shows with its context
      } finally {
        if (left != null) {
          left.countDown();
        }
      }
    }
  }

  @Override
  public void close() {
    if (pool != null) {
      pool.shutdown();
    }
  }
}
