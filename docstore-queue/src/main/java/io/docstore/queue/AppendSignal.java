package io.docstore.queue;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Wakes tailers when new blocks become readable. A version counter avoids lost wake-ups: a tailer
 * reads the version, looks for data, and waits only while the version is unchanged.
 *
 * <p>Thread-safe.
 */
final class AppendSignal {

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private volatile long version;

  long version() {
    return version;
  }

  void signal() {
    lock.lock();
    try {
      version++;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until the version differs from {@code seen} or the time is up; returns nanos left (<= 0:
   * timed out).
   */
  long await(long seen, long nanos) throws InterruptedException {
    lock.lock();
    try {
      while (version == seen && nanos > 0) {
        nanos = changed.awaitNanos(nanos);
      }
      return version == seen ? 0 : Math.max(nanos, 1);
    } finally {
      lock.unlock();
    }
  }
}
