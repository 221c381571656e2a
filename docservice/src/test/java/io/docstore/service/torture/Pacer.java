package io.docstore.service.torture;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Paces operations of any number of threads to a fixed total rate: each {@link #acquire} takes the
 * next slot on a shared schedule and sleeps until it. A schedule fallen behind by more than one
 * second is moved up (no burst to catch up after a stall). Thread-safe.
 */
final class Pacer {

  private final long intervalNanos;
  private final AtomicLong next = new AtomicLong(System.nanoTime());

  Pacer(double opsPerSecond) {
    this.intervalNanos =
        Math.max(1, (long) (TimeUnit.SECONDS.toNanos(1) / Math.max(0.001, opsPerSecond)));
  }

  void acquire() {
    long now = System.nanoTime();
    long slot = next.getAndAdd(intervalNanos);
    if (now - slot > TimeUnit.SECONDS.toNanos(1)) {
      next.compareAndSet(slot + intervalNanos, now);
      return;
    }
    while (slot - System.nanoTime() > 0) {
      LockSupport.parkNanos(slot - System.nanoTime());
    }
  }
}
