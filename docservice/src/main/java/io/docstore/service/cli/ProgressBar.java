package io.docstore.service.cli;

import java.util.Locale;

/**
 * A progress bar on the terminal's stderr for a long offline command (import, regroup), redrawn at
 * most every 200 ms; nothing when stderr is not a terminal.
 */
final class ProgressBar implements java.util.function.LongConsumer {

  private final long total;
  private final long t0;
  private final String unit;
  private final double unitSize;
  private final boolean terminal = System.console() != null;
  private long lastShown;

  /**
   * @param total the amount of work, in the caller's units (bytes, documents)
   * @param unit what is shown for {@code unitSize} of them ("MB" for 1e6 bytes, "k docs" for 1e3)
   */
  ProgressBar(long total, long t0, String unit, double unitSize) {
    this.total = total;
    this.t0 = t0;
    this.unit = unit;
    this.unitSize = unitSize;
  }

  @Override
  public void accept(long done) {
    long now = System.nanoTime();
    if (terminal && now - lastShown > 200_000_000L) {
      lastShown = now;
      System.err.print("\r" + line(done, now - t0));
      System.err.flush();
    }
  }

  void clear() {
    if (terminal) {
      System.err.print("\r" + " ".repeat(78) + "\r");
    }
  }

  String line(long done, long nanos) {
    double secs = Math.max(1e-3, nanos / 1e9);
    double rate = done / secs;
    long eta = rate > 0 ? (long) (Math.max(0, total - done) / rate) : 0;
    int pct = total <= 0 ? 100 : (int) Math.min(100, 100 * done / total);
    int bar = pct * 30 / 100;
    return String.format(
        Locale.ROOT,
        "[%s%s] %3d%%  %.1f/%.1f %s  %.1f %s/s  ETA %d:%02d",
        "#".repeat(bar),
        ".".repeat(30 - bar),
        pct,
        done / unitSize,
        total / unitSize,
        unit,
        rate / unitSize,
        unit,
        eta / 60,
        eta % 60);
  }
}
