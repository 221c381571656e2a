package io.docstore.bench.index;

import io.docstore.index.IndexOptions;
import io.docstore.index.IndexStats;
import io.docstore.index.LsmIndex;
import io.docstore.io.SyncPolicy;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * The article's index benchmark, single-threaded: N random puts (random 63-bit ids), then N gets of
 * the same ids in the same order, then N gets of absent ids (the bloom path). Prints ops/s, bytes
 * written per entry (WAL + index + bloom files: write amplification), resident memory, on-disk
 * index count, index pages read per get, and the fraction of absent gets answered without an index
 * page.
 *
 * <p>Usage: {@code IndexBenchRunner [entries=10000000] [sync=none|interval:N|always] [dir]
 * [page-cache-MiB=0]}.
 */
public final class IndexBenchRunner {

  private IndexBenchRunner() {}

  public static void main(String[] args) throws IOException {
    int n = args.length > 0 ? Integer.parseInt(args[0].replace("_", "")) : 10_000_000;
    SyncPolicy sync = SyncPolicy.parse(args.length > 1 ? args[1] : "none");
    Path dir = args.length > 2 ? Path.of(args[2]) : Files.createTempDirectory("index-bench");
    long pageCacheBytes = args.length > 3 ? Long.parseLong(args[3]) << 20 : 0;
    deleteContents(dir);
    long[] ids = new long[n];
    SplittableRandom rnd = new SplittableRandom(42);
    for (int i = 0; i < n; i++) {
      ids[i] = rnd.nextLong() & Long.MAX_VALUE;
    }
    System.out.printf(
        Locale.ROOT,
        "index benchmark: %,d entries, sync=%s, page cache %d MiB, dir=%s, java %s%n",
        n,
        sync,
        pageCacheBytes >> 20,
        dir,
        System.getProperty("java.version"));
    IndexOptions opts =
        IndexOptions.builder().syncPolicy(sync).pageCacheBytes(pageCacheBytes).build();
    try (LsmIndex index = LsmIndex.open(dir, opts)) {
      cpuMark = THREADS.getCurrentThreadCpuTime();
      long t0 = System.nanoTime();
      for (int i = 0; i < n; i++) {
        index.put(ids[i], i);
      }
      long putNanos = System.nanoTime() - t0;
      index.sync();
      index.flush();
      long flushedNanos = System.nanoTime() - t0;
      IndexStats afterPuts = index.stats();
      report("puts", n, putNanos);
      cpuMark = THREADS.getCurrentThreadCpuTime();
      System.out.printf(
          Locale.ROOT, "  puts incl. final flush: %.0f ops/s%n", n / (flushedNanos / 1e9));

      t0 = System.nanoTime();
      long sum = 0;
      for (int i = 0; i < n; i++) {
        sum += index.get(ids[i]);
      }
      long getNanos = System.nanoTime() - t0;
      IndexStats afterGets = index.stats();
      report("gets (present)", n, getNanos);
      long pages = afterGets.pagesRead() - afterPuts.pagesRead();
      System.out.printf(
          Locale.ROOT,
          "  index pages read per get: %.3f, of them from the page cache %.3f (checksum %d)%n",
          pages / (double) n,
          (afterGets.pageCacheHits() - afterPuts.pageCacheHits()) / (double) n,
          sum);

      SplittableRandom absent = new SplittableRandom(4242);
      t0 = System.nanoTime();
      long found = 0;
      for (int i = 0; i < n; i++) {
        if (index.get(absent.nextLong() & Long.MAX_VALUE) >= 0) {
          found++;
        }
      }
      long absentNanos = System.nanoTime() - t0;
      IndexStats end = index.stats();
      report("gets (absent)", n, absentNanos);
      System.out.printf(
          Locale.ROOT,
          "  load average at end: %s%n",
          Files.readString(Path.of("/proc/loadavg")).trim());
      long absentPages = end.pagesRead() - afterGets.pagesRead();
      long[] probes = end.probesPerGet();
      long[] before = afterGets.probesPerGet();
      System.out.printf(
          Locale.ROOT,
          "  absent gets answered without an index page: %.4f (pages per get %.4f, found %d)%n",
          (probes[0] - before[0]) / (double) n,
          absentPages / (double) n,
          found);
      long walBytes = (long) n * 24;
      System.out.printf(
          Locale.ROOT,
          "  bytes written per entry: index+bloom %.1f, WAL %.1f (24-byte record per put), total %.1f (entry writes per put %.2f)%n",
          end.tableBytesWritten() / (double) n,
          walBytes / (double) n,
          (end.tableBytesWritten() + walBytes) / (double) n,
          end.tableEntriesWritten() / (double) n);
      System.out.printf(
          Locale.ROOT,
          "  on-disk indexes %d %s, flushes %d, compactions %d, bloom resident %d MiB%n",
          end.indexCount(),
          index.indexSizes(),
          end.flushes(),
          end.compactions(),
          end.bloomResidentBytes() >> 20);
      System.out.printf(
          Locale.ROOT,
          "  resident memory %d MiB (heap used %d MiB)%n",
          rssMiB(),
          (Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory()) >> 20);
    }
    deleteContents(dir);
  }

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private static long cpuMark = THREADS.getCurrentThreadCpuTime();

  /**
   * Prints wall-clock ops/s and ops per CPU-second of this thread since the last report: on a
   * shared machine the second shows what the code costs when it gets a core.
   */
  private static void report(String what, int n, long nanos) {
    long cpu = THREADS.getCurrentThreadCpuTime();
    long cpuNanos = cpu - cpuMark;
    cpuMark = cpu;
    System.out.printf(
        Locale.ROOT,
        "%s: %,d in %.2f s = %,.0f ops/s wall, %,.0f ops per CPU-second of the caller%n",
        what,
        n,
        nanos / 1e9,
        n / (nanos / 1e9),
        n / (cpuNanos / 1e9));
  }

  private static long rssMiB() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) >> 10;
      }
    }
    return -1;
  }

  private static void deleteContents(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return;
    }
    try (Stream<Path> s = Files.list(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
