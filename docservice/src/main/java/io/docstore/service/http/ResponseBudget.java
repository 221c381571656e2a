package io.docstore.service.http;

import io.netty.util.internal.PlatformDependent;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Bytes of responses a port holds for its clients: built and not yet handed to the kernel (waiting
 * for an earlier response of the same connection, or in the connection's outbound buffer because
 * the client does not read). Shared by every connection of the port, and bounded, so that clients
 * that ask and never read cannot make the server hold unbounded memory: beyond its fair share, a
 * connection's response that does not fit is replaced by a short 503 (retry later), while clients
 * that read their answers keep being served from their fair share.
 *
 * <p>A response is always admitted when nothing else is held, so one response larger than the
 * budget still goes out. Thread-safe.
 */
final class ResponseBudget {

  private final long limit;
  private final AtomicLong held = new AtomicLong();

  ResponseBudget(long limit) {
    if (limit <= 0) {
      throw new IllegalArgumentException("response budget must be positive, got " + limit);
    }
    this.limit = limit;
  }

  /**
   * An eighth of the JVM's direct memory limit (responses live in direct buffers; the pooling
   * allocator holds up to about twice what is in use), at least 16 MiB.
   */
  static ResponseBudget forThisJvm() {
    return new ResponseBudget(Math.max(16L << 20, PlatformDependent.maxDirectMemory() / 8));
  }

  /** Takes {@code bytes} if they fit (or nothing is held); false otherwise. */
  boolean tryAcquire(long bytes) {
    while (true) {
      long h = held.get();
      if (h > 0 && h + bytes > limit) {
        return false;
      }
      if (held.compareAndSet(h, h + bytes)) {
        return true;
      }
    }
  }

  /**
   * Takes {@code bytes} whatever is held (a connection's fair share, see {@link HttpDispatcher}).
   */
  void acquire(long bytes) {
    held.addAndGet(bytes);
  }

  void release(long bytes) {
    held.addAndGet(-bytes);
  }

  long held() {
    return held.get();
  }

  long limit() {
    return limit;
  }
}
