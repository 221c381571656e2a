package io.docstore.bench.service;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The stop-the-world pauses of a JVM started with {@code
 * -Xlog:safepoint=info:file=F:uptime,timemillis}. JDK 17 writes one line per safepoint when it
 * ends, e.g.
 *
 * <pre>
 * [1.324s][1795635195909ms] Safepoint "G1CollectForAllocation", Time since last: 106150682 ns,
 *     Reaching safepoint: 3685 ns, Cleanup: 22153 ns, At safepoint: 74314470 ns, Total: 74340308 ns
 * </pre>
 *
 * (one line in the file). A pause is the line's {@code Total} (reaching the safepoint plus the
 * operation: how long the application threads stood still); it is placed at the line's wall-clock
 * time ({@code timemillis}, ms since the epoch, the clock of {@code date +%s%3N}). Every safepoint
 * counts, not only collections: each one stops all Java threads.
 */
final class SafepointLog {

  private static final Pattern LINE =
      Pattern.compile("\\[(\\d+)ms\\].*Safepoint \"([^\"]*)\".*Total: (\\d+) ns");

  /**
   * One safepoint: when it ended (epoch ms), the VM operation, how long threads were stopped (ns).
   */
  record Pause(long endMillis, String operation, long totalNanos) {}

  /** Pauses in one window: {@code count} of them, percentiles and max in ms (NaN when none). */
  record Summary(
      long fromMillis,
      long toMillis,
      int count,
      double p50Ms,
      double p99Ms,
      double maxMs,
      double totalMs,
      String maxOperation) {

    String line() {
      return String.format(
          Locale.ROOT,
          "pauses from=%d to=%d count=%d p50_ms=%s p99_ms=%s max_ms=%s total_ms=%s max_op=%s",
          fromMillis,
          toMillis,
          count,
          ms(p50Ms),
          ms(p99Ms),
          ms(maxMs),
          ms(totalMs),
          maxOperation);
    }

    private static String ms(double v) {
      return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.3f", v);
    }
  }

  private SafepointLog() {}

  /**
   * The safepoint lines among {@code lines}; other lines (and lines without a timemillis
   * decoration) are skipped.
   */
  static List<Pause> parse(List<String> lines) {
    List<Pause> out = new ArrayList<>();
    for (String l : lines) {
      Matcher m = LINE.matcher(l);
      if (m.find()) {
        out.add(new Pause(Long.parseLong(m.group(1)), m.group(2), Long.parseLong(m.group(3))));
      }
    }
    return out;
  }

  /** The pauses that ended within [fromMillis, toMillis]. */
  static Summary window(List<Pause> pauses, long fromMillis, long toMillis) {
    List<Pause> in = new ArrayList<>();
    for (Pause p : pauses) {
      if (p.endMillis() >= fromMillis && p.endMillis() <= toMillis) {
        in.add(p);
      }
    }
    if (in.isEmpty()) {
      return new Summary(fromMillis, toMillis, 0, Double.NaN, Double.NaN, Double.NaN, 0, "-");
    }
    long[] nanos = new long[in.size()];
    long total = 0;
    Pause longest = in.get(0);
    for (int i = 0; i < nanos.length; i++) {
      Pause p = in.get(i);
      nanos[i] = p.totalNanos();
      total += nanos[i];
      if (p.totalNanos() > longest.totalNanos()) {
        longest = p;
      }
    }
    Arrays.sort(nanos);
    return new Summary(
        fromMillis,
        toMillis,
        nanos.length,
        percentile(nanos, 50) / 1e6,
        percentile(nanos, 99) / 1e6,
        nanos[nanos.length - 1] / 1e6,
        total / 1e6,
        longest.operation());
  }

  /** Nearest rank: the smallest value with at least p percent of the values at or below it. */
  static long percentile(long[] sorted, double p) {
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }
}
