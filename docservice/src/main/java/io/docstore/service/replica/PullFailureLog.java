package io.docstore.service.replica;

import java.util.concurrent.TimeUnit;

/**
 * Turns a run of failed pulls into few log lines: the first failure says what is wrong and that
 * reads keep being served from the local copy; while pulls keep failing, a summary at most every
 * {@link #REPORT_MILLIS}; the first success after failures says so. Returns the lines; the caller
 * logs them.
 *
 * <p>Thread-safety: the ingest thread only.
 */
final class PullFailureLog {

  /** At most one summary line per this while pulls keep failing. */
  static final long REPORT_MILLIS = TimeUnit.SECONDS.toMillis(30);

  private final String source;
  private final long intervalMillis;
  private long failingSince = -1;
  private long lastReport;
  private long failures;
  private long failuresSinceReport;

  PullFailureLog(String source, long intervalMillis) {
    this.source = source;
    this.intervalMillis = intervalMillis;
  }

  /**
   * A pull failed at {@code now}; the WARN line to log, or null.
   *
   * @param applied the sequence reads are served through
   * @param lagMillis the replica's lag ({@link Freshness#lagMillis})
   */
  String failed(long now, String error, long applied, long lagMillis) {
    failures++;
    if (failingSince < 0) {
      failingSince = now;
      lastReport = now;
      failuresSinceReport = 0;
      return "pulls from "
          + source
          + " fail: "
          + error
          + "; reads keep being served from the local copy (applied through sequence "
          + applied
          + "), which grows staler until a pull succeeds; retrying every "
          + intervalMillis
          + " ms, next report in "
          + TimeUnit.MILLISECONDS.toSeconds(REPORT_MILLIS)
          + " s if this goes on";
    }
    failuresSinceReport++;
    if (now - lastReport < REPORT_MILLIS) {
      return null;
    }
    String line =
        "pulls from "
            + source
            + " still fail after "
            + seconds(now - failingSince)
            + " s ("
            + failuresSinceReport
            + " more failures since the last report, "
            + failures
            + " in all); reads are served from the local copy, lag "
            + seconds(lagMillis)
            + " s; last error: "
            + error;
    lastReport = now;
    failuresSinceReport = 0;
    return line;
  }

  /** A pull succeeded at {@code now}; the INFO line to log after a run of failures, or null. */
  String succeeded(long now) {
    if (failingSince < 0) {
      return null;
    }
    String line =
        "pulls from "
            + source
            + " succeed again after "
            + failures
            + " failures over "
            + seconds(now - failingSince)
            + " s";
    failingSince = -1;
    failures = 0;
    return line;
  }

  private static String seconds(long millis) {
    return String.format(java.util.Locale.ROOT, "%.1f", millis / 1000.0);
  }
}
