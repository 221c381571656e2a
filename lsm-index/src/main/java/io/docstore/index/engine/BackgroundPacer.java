package io.docstore.index.engine;

import com.google.common.util.concurrent.RateLimiter;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Paces the background thread's table writes to a byte rate, so a large merge does not take a core
 * and the disk away from lookups for its whole length (on a 2-core machine, a merge at full speed
 * is what a reader's p99.9 pays for). The limit is lifted whenever someone waits for the background
 * thread ({@code urgent}): a writer blocked on full frozen tables, an explicit flush, a close. Used
 * only by the engine's single background thread.
 */
final class BackgroundPacer {

  /** How long to sleep between checks of {@code urgent} while over the rate. */
  private static final long CHECK_NANOS = 500_000;

  private final RateLimiter limiter;
  private final BooleanSupplier urgent;

  /** {@code bytesPerSecond} 0 means no limit. */
  BackgroundPacer(long bytesPerSecond, BooleanSupplier urgent) {
    this.limiter = bytesPerSecond == 0 ? null : RateLimiter.create(bytesPerSecond);
    this.urgent = urgent;
  }

  /**
   * Accounts {@code bytes} just written; sleeps while over the rate unless the work became urgent.
   */
  void written(int bytes) {
    if (limiter == null) {
      return;
    }
    while (!limiter.tryAcquire(bytes)) {
      if (urgent.getAsBoolean()) {
        return;
      }
      LockSupport.parkNanos(CHECK_NANOS);
    }
  }
}
