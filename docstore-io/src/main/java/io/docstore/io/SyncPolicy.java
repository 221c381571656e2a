package io.docstore.io;

import java.util.Locale;

/**
 * When appended data is forced to the device before it is acknowledged.
 *
 * <ul>
 *   <li>{@code always}: fsync before acknowledging; concurrent writers share one fsync (group
 *       commit). Survives power loss.
 *   <li>{@code interval:N} (milliseconds): a background thread fsyncs every N ms when there is new
 *       data; an acknowledgement waits for the next such fsync. Survives power loss; adds up to N
 *       ms of latency but batches more.
 *   <li>{@code none}: the OS decides. Survives a process crash (the data is in the page cache) but
 *       <b>not</b> a power loss or kernel crash. Unsafe for acknowledged writes; for bulk loads and
 *       benchmarks only.
 * </ul>
 */
public record SyncPolicy(Mode mode, long intervalMillis) {

  public enum Mode {
    ALWAYS,
    INTERVAL,
    NONE
  }

  public static final SyncPolicy ALWAYS = new SyncPolicy(Mode.ALWAYS, 0);
  public static final SyncPolicy NONE = new SyncPolicy(Mode.NONE, 0);

  public SyncPolicy {
    if (mode == Mode.INTERVAL && intervalMillis <= 0) {
      throw new IllegalArgumentException(
          "sync interval must be positive, got " + intervalMillis + " ms");
    }
  }

  public static SyncPolicy interval(long millis) {
    return new SyncPolicy(Mode.INTERVAL, millis);
  }

  /** Parses {@code always}, {@code none}, {@code interval} (100 ms) or {@code interval:N}. */
  public static SyncPolicy parse(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    if (t.equals("always")) {
      return ALWAYS;
    }
    if (t.equals("none")) {
      return NONE;
    }
    if (t.equals("interval")) {
      return interval(100);
    }
    if (t.startsWith("interval:")) {
      String n = t.substring("interval:".length()).replace("ms", "").trim();
      try {
        return interval(Long.parseLong(n));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "bad sync interval in '" + text + "': expected interval:<millis>");
      }
    }
    throw new IllegalArgumentException(
        "unknown sync policy '" + text + "': expected always, interval:<millis> or none");
  }

  @Override
  public String toString() {
    return mode == Mode.INTERVAL
        ? "interval:" + intervalMillis
        : mode.name().toLowerCase(Locale.ROOT);
  }
}
