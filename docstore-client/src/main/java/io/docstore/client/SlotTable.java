package io.docstore.client;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

/**
 * Boxcar-style request slots: each server offers {@code slotsPerServer} slots, numbered so that
 * slot level {@code j} of every server comes before level {@code j + 1} of any server ({@code
 * number = j * servers + position}). A request takes the lowest-numbered free slot of a connected
 * server. At low load that is the first server's first slot; as load rises, requests spread over
 * every server; a slow server keeps its slots busy longer and so receives fewer requests; a
 * disconnected server offers no slots at all.
 *
 * <p>Thread-safe: one lock guards the table; waiters are woken when a slot frees or a server
 * connects.
 */
final class SlotTable {

  private final int servers;

  /** busy[level * servers + server]. */
  private final boolean[] busy;

  private final boolean[] up;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private boolean closed;

  SlotTable(int servers, int slotsPerServer) {
    this.servers = servers;
    this.busy = new boolean[servers * slotsPerServer];
    this.up = new boolean[servers];
  }

  /**
   * Takes the lowest-numbered free slot, avoiding server {@code avoid} (or -1) unless no other
   * server is connected. Waits up to {@code timeoutNanos}; returns the slot number, or -1 on
   * timeout or when closed.
   */
  int acquire(int avoid, long timeoutNanos) throws InterruptedException {
    return await(
        timeoutNanos,
        () -> false,
        () -> {
          boolean avoidIt = avoid >= 0 && otherServerUp(avoid);
          for (int slot = 0; slot < busy.length; slot++) {
            int server = slot % servers;
            if (!busy[slot] && up[server] && !(avoidIt && server == avoid)) {
              return slot;
            }
          }
          return -1;
        });
  }

  /**
   * Takes the lowest-numbered free slot of {@code server}. Waits up to {@code timeoutNanos} for one
   * to free; returns the slot number, or -1 at once when that server is not connected, or on
   * timeout or when closed.
   */
  int acquireOn(int server, long timeoutNanos) throws InterruptedException {
    return await(
        timeoutNanos,
        () -> !up[server],
        () -> {
          for (int slot = server; slot < busy.length; slot += servers) {
            if (!busy[slot]) {
              return slot;
            }
          }
          return -1;
        });
  }

  /**
   * Under the lock: takes the slot {@code free} names, waiting for changes up to {@code
   * timeoutNanos}; -1 on timeout, when closed, or as soon as {@code hopeless} holds.
   */
  private int await(long timeoutNanos, BooleanSupplier hopeless, IntSupplier free)
      throws InterruptedException {
    long remaining = timeoutNanos;
    lock.lock();
    try {
      while (!closed && !hopeless.getAsBoolean()) {
        int slot = free.getAsInt();
        if (slot >= 0) {
          busy[slot] = true;
          return slot;
        }
        if (remaining <= 0) {
          return -1;
        }
        remaining = changed.awaitNanos(remaining);
      }
      return -1;
    } finally {
      lock.unlock();
    }
  }

  /** How many servers the table holds. */
  int servers() {
    return servers;
  }

  private boolean otherServerUp(int server) {
    for (int s = 0; s < servers; s++) {
      if (s != server && up[s]) {
        return true;
      }
    }
    return false;
  }

  /** The server a slot number belongs to. */
  int serverOf(int slot) {
    return slot % servers;
  }

  void release(int slot) {
    lock.lock();
    try {
      busy[slot] = false;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  void setUp(int server, boolean isUp) {
    lock.lock();
    try {
      up[server] = isUp;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  boolean isUp(int server) {
    lock.lock();
    try {
      return up[server];
    } finally {
      lock.unlock();
    }
  }

  /** Wakes every waiter and makes further acquires fail. */
  void close() {
    lock.lock();
    try {
      closed = true;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }
}
