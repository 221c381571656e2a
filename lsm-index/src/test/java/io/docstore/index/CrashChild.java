package io.docstore.index;

import io.docstore.io.SyncPolicy;
import java.nio.file.Path;

/**
 * Child JVM of {@link KillCrashTest}: writes numbered batches with {@code sync=always} and prints
 * {@code ACK n} after batch n returned (was acknowledged), until it is killed. Batch contents are a
 * pure function of the batch number ({@link #ids}), so the parent can recompute them.
 */
public final class CrashChild {

  static final int PUTS = 400;
  static final int DELETES = 40;

  private CrashChild() {}

  /** Ids put by batch {@code b}: distinct, random-looking 63-bit ids. */
  static long id(long b, int i) {
    long z = (b * PUTS + i + 1) * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 31)) * 0xBF58476D1CE4E5B9L;
    return (z ^ (z >>> 29)) & Long.MAX_VALUE;
  }

  static long value(long b, int i) {
    return b * PUTS + i;
  }

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    long firstBatch = Long.parseLong(args[1]);
    IndexOptions opts =
        IndexOptions.builder()
            .syncPolicy(SyncPolicy.ALWAYS)
            .memTableBytes(8 * 1024)
            .bloomMemoryBytes(64 * 1024)
            .build();
    try (LsmIndex index = LsmIndex.open(dir, opts)) {
      System.out.println("OPEN");
      System.out.flush();
      long[] ids = new long[PUTS + DELETES];
      long[] values = new long[PUTS + DELETES];
      for (long b = firstBatch; ; b++) {
        int n = 0;
        for (int i = 0; i < PUTS; i++, n++) {
          ids[n] = id(b, i);
          values[n] = value(b, i);
        }
        if (b >= 3) {
          for (int i = 0; i < DELETES; i++, n++) {
            ids[n] = id(b - 3, i);
            values[n] = LsmIndex.DELETED;
          }
        }
        index.putAll(ids, values, n);
        System.out.println("ACK " + b);
        System.out.flush();
      }
    }
  }
}
