package io.docstore.bench.workloads;

import org.HdrHistogram.Histogram;

/**
 * Times one phase: per-operation latencies, the time spent inside engine calls, wall time and I/O
 * counters. Not thread-safe.
 */
final class PhaseTimer {

  private final String phase;
  private final Histogram latency = PhaseResult.newHistogram();

  /**
   * Null for a timer of a subset of another phase's operations: the process's I/O is not theirs
   * alone.
   */
  private final ProcSelf.Io ioAtStart;

  private final long start = System.nanoTime();
  private long engineNanos;

  PhaseTimer(String phase) {
    this(phase, ProcSelf.io());
  }

  private PhaseTimer(String phase, ProcSelf.Io ioAtStart) {
    this.phase = phase;
    this.ioAtStart = ioAtStart;
  }

  /** A timer for some of the operations of a phase timed elsewhere; it reports no I/O. */
  static PhaseTimer subset(String phase) {
    return new PhaseTimer(phase, null);
  }

  /** One operation's latency; also counted as time inside the engine. */
  void record(long nanos) {
    long n = Math.max(0, nanos);
    latency.recordValue(n);
    engineNanos += n;
  }

  /** Time inside the engine that is not an operation of its own (the phase's final flush). */
  void addEngineTime(long nanos) {
    engineNanos += Math.max(0, nanos);
  }

  long elapsedNanos() {
    return System.nanoTime() - start;
  }

  /**
   * For a rate-limited phase, whose achieved rate is the point: ops/s over wall time, not over the
   * time inside the engine.
   */
  PhaseResult finishAtWallClockRate(long ops) {
    long nanos = System.nanoTime() - start;
    return new PhaseResult(phase, ops, nanos, nanos, latency, 0, 0, io());
  }

  PhaseResult finish(long ops, long misses, long wrong) {
    long nanos = System.nanoTime() - start;
    return new PhaseResult(phase, ops, nanos, engineNanos, latency, misses, wrong, io());
  }

  /** A phase that consumed {@code inputBytes} of input (the bulk load): its table shows MB/s. */
  PhaseResult finishBulk(long ops, long inputBytes) {
    long nanos = System.nanoTime() - start;
    return new PhaseResult(phase, ops, nanos, engineNanos, latency, 0, 0, io(), inputBytes);
  }

  private ProcSelf.Io io() {
    return ioAtStart == null ? ProcSelf.Io.NONE : ProcSelf.io().minus(ioAtStart);
  }
}
