package io.docstore.bench.workloads;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.HdrHistogram.Histogram;

/**
 * What one phase of a workload measured on one engine.
 *
 * @param phase e.g. "write", "read"
 * @param ops operations done
 * @param nanos wall time of the whole phase (final flush included)
 * @param engineNanos time spent inside engine calls (input generation and verification excluded):
 *     ops/s is computed from this, so a slow generator does not cap a fast engine
 * @param latency per-operation latency in nanoseconds
 * @param misses reads that found nothing where a value was expected
 * @param wrong reads that found a value other than the one expected (or a value where none was)
 * @param io this process's I/O counters over the phase
 * @param inputBytes bytes of input the phase consumed (the bulk load's file), else 0
 * @param p99UsPerSecond the p99 (us) of each 1-second window of the phase, in order, for a phase
 *     that keeps them (readwhilewriting's reader), else empty; written as {@code p99_us_per_s}
 * @param extra fields of this workload's own, written after the others in their order (a list
 *     comma-separated); empty for most
 */
public record PhaseResult(
    String phase,
    long ops,
    long nanos,
    long engineNanos,
    Histogram latency,
    long misses,
    long wrong,
    ProcSelf.Io io,
    long inputBytes,
    List<Double> p99UsPerSecond,
    Map<String, Object> extra) {

  public PhaseResult {
    p99UsPerSecond = List.copyOf(p99UsPerSecond);
    extra = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(extra));
  }

  public PhaseResult(
      String phase,
      long ops,
      long nanos,
      long engineNanos,
      Histogram latency,
      long misses,
      long wrong,
      ProcSelf.Io io,
      long inputBytes) {
    this(
        phase,
        ops,
        nanos,
        engineNanos,
        latency,
        misses,
        wrong,
        io,
        inputBytes,
        List.of(),
        Map.of());
  }

  public PhaseResult(
      String phase,
      long ops,
      long nanos,
      long engineNanos,
      Histogram latency,
      long misses,
      long wrong,
      ProcSelf.Io io) {
    this(phase, ops, nanos, engineNanos, latency, misses, wrong, io, 0);
  }

  /** This result with the p99 of each 1-second window. */
  public PhaseResult withP99PerSecond(List<Double> p99s) {
    return new PhaseResult(
        phase, ops, nanos, engineNanos, latency, misses, wrong, io, inputBytes, p99s, extra);
  }

  /** This result with {@code fields} after the standard ones. */
  public PhaseResult withExtra(Map<String, Object> fields) {
    return new PhaseResult(
        phase,
        ops,
        nanos,
        engineNanos,
        latency,
        misses,
        wrong,
        io,
        inputBytes,
        p99UsPerSecond,
        fields);
  }

  /** MB (10^6 bytes) of input per second of engine time; 0 for a phase without input bytes. */
  public double inputMegabytesPerSecond() {
    return engineNanos == 0 ? 0 : inputBytes * 1e3 / engineNanos;
  }

  public double opsPerSecond() {
    return engineNanos == 0 ? 0 : ops * 1e9 / engineNanos;
  }

  /**
   * Flat fields in a fixed order; numbers only (the per-second p99s as one comma-separated list),
   * so the line format needs no quoting.
   */
  public Map<String, Object> fields() {
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("phase", phase);
    f.put("ops", ops);
    f.put("seconds", round(nanos / 1e9));
    f.put("engine_seconds", round(engineNanos / 1e9));
    f.put("ops_per_s", Math.round(opsPerSecond()));
    f.put("p50_us", round(latency.getValueAtPercentile(50) / 1e3));
    f.put("p99_us", round(latency.getValueAtPercentile(99) / 1e3));
    f.put("p999_us", round(latency.getValueAtPercentile(99.9) / 1e3));
    f.put("max_us", round(latency.getMaxValue() / 1e3));
    f.put("misses", misses);
    f.put("wrong", wrong);
    f.put("read_bytes", io.readBytes());
    f.put("write_bytes", io.writeBytes());
    f.put("read_calls", io.readCalls());
    f.put("device_reads", io.deviceReads());
    if (inputBytes > 0) {
      f.put("input_bytes", inputBytes);
      f.put("input_mb_per_s", round(inputMegabytesPerSecond()));
    }
    if (!p99UsPerSecond.isEmpty()) {
      f.put(
          "p99_us_per_s",
          p99UsPerSecond.stream()
              .map(v -> Double.toString(round(v)))
              .collect(Collectors.joining(",")));
    }
    for (Map.Entry<String, Object> e : extra.entrySet()) {
      f.put(
          e.getKey(),
          e.getValue() instanceof List<?> l
              ? l.stream().map(String::valueOf).collect(Collectors.joining(","))
              : e.getValue());
    }
    return f;
  }

  static Histogram newHistogram() {
    return new Histogram(3_600_000_000_000L, 3);
  }

  private static double round(double v) {
    return Math.round(v * 100) / 100.0;
  }
}
