package io.docstore.service.gc;

import java.time.Duration;

/**
 * Settings of the space reclamation ({@code docstore.gc.*}).
 *
 * @param enabled whether the background reclamation runs (it can also be paused at run time)
 * @param target the space amplification (stored bytes over live stored bytes) a pass stops at
 * @param bytesPerSecond how many stored bytes a pass may relocate per second (records counted as
 *     they were stored in their victims); 0: no limit
 * @param interval how often the background reclamation looks at the queue
 * @param reserveBytes free space a pass never goes below: the room writes keep
 * @param minGarbage the least garbage share a segment needs to be a victim
 * @param batch records appended per durable batch of relocations
 */
public record GcOptions(
    boolean enabled,
    double target,
    long bytesPerSecond,
    Duration interval,
    long reserveBytes,
    double minGarbage,
    int batch) {

  public GcOptions {
    if (!(target >= 1)) {
      throw new IllegalArgumentException("gc target must be at least 1.0, got " + target);
    }
    if (bytesPerSecond < 0 || reserveBytes < 0 || batch < 1) {
      throw new IllegalArgumentException("gc rate, reserve and batch must not be negative");
    }
  }

  /** The defaults: on, target 1.3, 32 MB/s, every 10 s, 1 GiB reserve, 20% garbage at least. */
  public static GcOptions defaults() {
    return new GcOptions(true, 1.3, 32L << 20, Duration.ofSeconds(10), 1L << 30, 0.2, 1024);
  }

  public GcOptions withTarget(double t) {
    return new GcOptions(enabled, t, bytesPerSecond, interval, reserveBytes, minGarbage, batch);
  }

  public GcOptions withEnabled(boolean e) {
    return new GcOptions(e, target, bytesPerSecond, interval, reserveBytes, minGarbage, batch);
  }

  public GcOptions withReserveBytes(long r) {
    return new GcOptions(enabled, target, bytesPerSecond, interval, r, minGarbage, batch);
  }
}
