package io.docstore.bench.workloads;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * What the churn workload's writer shares with its reader and sampler: the simulated clock on the
 * wall clock, how far the engine has acknowledged the writes (a flush), the live documents and
 * their bytes, and whether the writer is done. One writer thread; readers on any thread.
 *
 * <p>A posting is acknowledged as created once its number is below {@link #createdThrough()}
 * (postings are created in number order). Its removal goes {@link #LIVE} to {@link #REMOVING} (set
 * before the delete is handed to the engine) to {@link #REMOVED} (after the flush that carried it;
 * for an engine that expires documents itself, once the wall clock is past the expiry).
 */
final class ChurnState {

  static final byte LIVE = 0;
  static final byte REMOVING = 1;
  static final byte REMOVED = 2;

  private static final VarHandle STATES = MethodHandles.arrayElementVarHandle(byte[].class);

  private final long startNanos = System.nanoTime();
  private final long startMillis = System.currentTimeMillis();
  private final double nanosPerSimMs;
  private final byte[] states;
  private final CountDownLatch finished = new CountDownLatch(1);

  private volatile long createdThrough;

  /** The simulated time of the last event the writer wrote. */
  private volatile long simMs;

  private volatile long liveDocs;
  private volatile long liveBytes;

  /**
   * @param postings how many postings the run creates
   * @param nanosPerSimMs wall nanoseconds per simulated millisecond
   */
  ChurnState(long postings, double nanosPerSimMs) {
    this.states = new byte[Math.toIntExact(postings)];
    this.nanosPerSimMs = nanosPerSimMs;
  }

  /** When simulated time {@code simMs} is due, in {@link System#nanoTime()}. */
  long dueNanos(long simMs) {
    return startNanos + (long) (simMs * nanosPerSimMs);
  }

  /** Simulated time {@code simMs} as epoch milliseconds (an expiry for the engine). */
  long wallMillis(long simMs) {
    return startMillis + (long) (simMs * nanosPerSimMs / 1e6);
  }

  long startNanos() {
    return startNanos;
  }

  /** Waits until {@code System.nanoTime()} reaches {@code due}. */
  static void parkUntil(long due) {
    for (long wait; (wait = due - System.nanoTime()) > 0; ) {
      LockSupport.parkNanos(wait);
    }
  }

  /** Waits until {@code System.currentTimeMillis()} reaches {@code millis}. */
  static void parkUntilMillis(long millis) {
    while (System.currentTimeMillis() < millis) {
      LockSupport.parkNanos(100_000);
    }
  }

  long createdThrough() {
    return createdThrough;
  }

  byte state(long posting) {
    return (byte) STATES.getAcquire(states, (int) posting);
  }

  /** Before the delete of {@code posting} is handed to the engine. */
  void removing(long posting) {
    STATES.setRelease(states, (int) posting, REMOVING);
  }

  /** Once the engine has acknowledged the removal of {@code posting}. */
  void removed(long posting) {
    STATES.setRelease(states, (int) posting, REMOVED);
  }

  /** After a flush: the postings below {@code created} and the given removals are acknowledged. */
  void acknowledge(long created, long[] removals, int count) {
    for (int i = 0; i < count; i++) {
      removed(removals[i]);
    }
    createdThrough = created;
  }

  /** The writer's position and the live documents after its latest event. */
  void wrote(long simMs, long docsDelta, long bytesDelta) {
    this.simMs = simMs;
    liveDocs += docsDelta; // one writer
    liveBytes += bytesDelta;
  }

  long simMs() {
    return simMs;
  }

  long liveDocs() {
    return liveDocs;
  }

  /** The uncompressed bytes of the live documents' current versions. */
  long liveBytes() {
    return liveBytes;
  }

  void finish() {
    finished.countDown();
  }

  /** Waits up to {@code nanos} for the writer to finish; true if it has. */
  boolean awaitFinished(long nanos) throws InterruptedException {
    return finished.await(nanos, TimeUnit.NANOSECONDS);
  }

  boolean isFinished() {
    return finished.getCount() == 0;
  }
}
