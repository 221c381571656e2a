package io.docstore.bench.workloads;

import org.HdrHistogram.Histogram;

/** Times one phase: per-operation latencies, wall time and I/O counters. Not thread-safe. */
final class PhaseTimer {

  private final String phase;
  private final Histogram latency = PhaseResult.newHistogram();
  private final ProcSelf.Io ioAtStart = ProcSelf.io();
  private final long start = System.nanoTime();

  PhaseTimer(String phase) {
    this.phase = phase;
  }

  void record(long nanos) {
    latency.recordValue(Math.max(0, nanos));
  }

  long elapsedNanos() {
    return System.nanoTime() - start;
  }

  PhaseResult finish(long ops, long misses, long wrong) {
    long nanos = System.nanoTime() - start;
    return new PhaseResult(phase, ops, nanos, latency, misses, wrong, ProcSelf.io().minus(ioAtStart));
  }
}
