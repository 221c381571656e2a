package io.docstore.io;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * Turns a {@link SyncPolicy} into acknowledgements: writers call {@link #awaitDurable(long)} with
 * the position (a byte offset or sequence number, increasing) they need durable, and return when it
 * is.
 *
 * <p>Group commit: under {@code always}, the first waiter becomes the leader and runs one fsync for
 * everything written so far; writers arriving meanwhile wait for the next fsync, which the next
 * leader runs for all of them. Under {@code interval:N} a daemon thread fsyncs every N ms when
 * something new was written. Under {@code none} nothing waits.
 *
 * <p>A failed fsync is sticky (as after Linux's fsync error the page cache state is unknown): every
 * later {@link #awaitDurable} throws, so the owner goes read-only instead of acknowledging data it
 * could not persist. A restart, which re-reads the files, is the recovery. The one exception is a
 * {@link NoSpaceException} raised by the force callback before it fsyncs (a buffered writer
 * draining its buffer into a full disk): nothing reached the file, so it fails only the waiters of
 * that round and the next round retries.
 *
 * <p>Thread-safe. The {@code written} supplier is read before each force, so the position reported
 * durable never runs ahead of what the force covered.
 */
public final class GroupCommit implements AutoCloseable {

  /** Forces everything written so far to the device. */
  @FunctionalInterface
  public interface Force {
    void force() throws IOException;
  }

  private final SyncPolicy policy;
  private final LongSupplier written;
  private final Force force;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private volatile LongConsumer syncNanosListener = n -> {};
  private long durable;
  private boolean syncing;
  private IOException failure;
  private volatile boolean closed;
  private final Thread ticker;

  /**
   * @param written the highest position written so far (read before each force)
   * @param force forces the written data
   * @param initialDurable the position already durable when this starts (e.g. after recovery)
   */
  public GroupCommit(
      String name, SyncPolicy policy, LongSupplier written, Force force, long initialDurable) {
    this.policy = policy;
    this.written = written;
    this.force = force;
    this.durable = initialDurable;
    if (policy.mode() == SyncPolicy.Mode.INTERVAL) {
      ticker = new Thread(this::tick, name + "-fsync");
      ticker.setDaemon(true);
      ticker.start();
    } else {
      ticker = null;
    }
  }

  public SyncPolicy policy() {
    return policy;
  }

  /** Receives the duration of every fsync in nanoseconds (a metrics hook). */
  public void onSync(LongConsumer listener) {
    this.syncNanosListener = listener;
  }

  /** The highest position known durable. */
  public long durablePosition() {
    lock.lock();
    try {
      return durable;
    } finally {
      lock.unlock();
    }
  }

  /** Throws if an earlier fsync failed. */
  public void checkHealthy() throws IOException {
    lock.lock();
    try {
      if (failure != null) {
        throw new IOException(
            "an earlier fsync failed; refusing to acknowledge writes until restart", failure);
      }
    } finally {
      lock.unlock();
    }
  }

  /** Blocks until {@code position} is durable under the policy ({@code none}: returns at once). */
  public void awaitDurable(long position) throws IOException {
    switch (policy.mode()) {
      case NONE -> checkHealthy();
      case ALWAYS -> syncUpTo(position);
      case INTERVAL -> waitForTicker(position);
    }
  }

  /** Forces everything written so far, whatever the policy (used by seal, flush, close). */
  public void syncNow() throws IOException {
    syncUpTo(written.getAsLong());
  }

  private void syncUpTo(long position) throws IOException {
    lock.lock();
    try {
      while (true) {
        checkHealthy();
        if (durable >= position) {
          return;
        }
        if (!syncing) {
          break;
        }
        changed.awaitUninterruptibly();
      }
      syncing = true;
    } finally {
      lock.unlock();
    }
    IOException noSpace = runSync();
    if (noSpace != null) {
      throw noSpace;
    }
    lock.lock();
    try {
      checkHealthy();
      if (durable < position) {
        throw new IllegalStateException(
            "position " + position + " awaited but only " + durable + " was written");
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Runs one fsync as leader; {@code syncing} must have been set by the caller. Returns a
   * (non-sticky) {@link NoSpaceException} of the force callback, else null.
   */
  private IOException runSync() {
    long target = written.getAsLong();
    IOException err = null;
    long t0 = System.nanoTime();
    try {
      force.force();
    } catch (IOException e) {
      err = e;
    } catch (RuntimeException e) {
      err = new IOException("fsync failed", e);
    }
    long nanos = System.nanoTime() - t0;
    lock.lock();
    try {
      syncing = false;
      if (err instanceof NoSpaceException) {
        changed.signalAll();
        return err;
      }
      if (err != null) {
        if (failure == null) {
          failure = err;
        }
      } else if (target > durable) {
        durable = target;
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    if (err == null) {
      syncNanosListener.accept(nanos);
    }
    return null;
  }

  private void waitForTicker(long position) throws IOException {
    lock.lock();
    try {
      while (true) {
        checkHealthy();
        if (durable >= position) {
          return;
        }
        if (closed) {
          throw new IOException("closed before position " + position + " became durable");
        }
        changed.awaitUninterruptibly();
      }
    } finally {
      lock.unlock();
    }
  }

  private void tick() {
    while (!closed) {
      try {
        TimeUnit.MILLISECONDS.sleep(policy.intervalMillis());
      } catch (InterruptedException e) {
        return;
      }
      boolean run;
      lock.lock();
      try {
        run = failure == null && !syncing && written.getAsLong() > durable;
        if (run) {
          syncing = true;
        }
      } finally {
        lock.unlock();
      }
      if (run) {
        runSync();
      }
    }
  }

  /** Stops the interval thread. Does not sync: the owner syncs before closing its file. */
  @Override
  public void close() {
    closed = true;
    if (ticker != null) {
      ticker.interrupt();
      try {
        ticker.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    lock.lock();
    try {
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }
}
