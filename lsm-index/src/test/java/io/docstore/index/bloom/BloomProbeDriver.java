package io.docstore.index.bloom;

import io.docstore.io.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Not a test: the driver behind the cache-miss and instruction counts of docs/formats/bloom.md,
 * "Cost of a lookup". Builds a filter of format {@code version} over {@code keys} even ids, opens
 * it with all pages resident, asks it about {@code warmup} absent (odd) ids, then about {@code
 * probes} other absent ids, in calls of {@value #CHUNK} lookups, and prints the answers and the
 * time per lookup. Run it under valgrind twice with the same warmup and two lookup counts, and
 * divide the difference of the counts by the difference of the lookups: building the filter,
 * starting the JVM, compiling the probe loop and anything the first measured call does once cost
 * the same in both runs and cancel.
 *
 * <p>Arguments: {@code version keys warmup probes}, e.g. {@code 2 1000000 200000 200000}.
 */
public final class BloomProbeDriver {

  private static final int CHUNK = 10_000;

  private BloomProbeDriver() {}

  public static void main(String[] args) throws Exception {
    int version = Integer.parseInt(args[0]);
    int keys = Integer.parseInt(args[1]);
    long warmup = Long.parseLong(args[2]);
    long probes = Long.parseLong(args[3]);
    Path dir = Files.createTempDirectory("bloom-probe-");
    try {
      BloomBuilder b = new BloomBuilder(version, keys, 0.01);
      for (long i = 0; i < keys; i++) {
        b.add(i * 2);
      }
      Path file = dir.resolve("0000000001.bloom");
      b.writeTo(FileSystem.real(), file);
      try (BloomPager pager =
              new BloomPager(
                  (long) (b.pageCount() + 1) * BloomFormat.PAGE_SIZE, BloomPolicy.USEFULNESS);
          BloomFilter f = BloomFilter.open(FileSystem.real(), file, pager)) {
        long maybeWarm = ask(f, 0, warmup);
        long t0 = System.nanoTime();
        long maybe = ask(f, warmup, probes);
        long nanos = System.nanoTime() - t0;
        System.out.printf(
            Locale.ROOT,
            "v%d keys=%d pages=%d probes/key=%d warmup=%d (maybe %d) lookups=%d maybe=%d"
                + " (%.4f) %.1f ns/lookup%n",
            version,
            keys,
            f.pageCount(),
            f.probes(),
            warmup,
            maybeWarm,
            probes,
            maybe,
            maybe / (double) Math.max(1, probes),
            nanos / (double) Math.max(1, probes));
      }
    } finally {
      try (Stream<Path> s = Files.walk(dir)) {
        for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
  }

  /**
   * Asks about the absent ids 2j+1 for j in [from, from+n), {@value #CHUNK} a call; returns how
   * many answered "maybe".
   */
  private static long ask(BloomFilter f, long from, long n) {
    long maybe = 0;
    for (long at = from; at < from + n; at += CHUNK) {
      maybe += askChunk(f, at, Math.min(CHUNK, from + n - at));
    }
    return maybe;
  }

  private static long askChunk(BloomFilter f, long from, long n) {
    long maybe = 0;
    for (long j = from; j < from + n; j++) {
      if (f.query(2 * j + 1) != BloomFilter.NO) {
        maybe++;
      }
    }
    return maybe;
  }
}
