package io.docstore.service.torture;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.TestSupport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 9: soak. A {@code serve} JVM with the default configuration under a mixed load (2 writer
 * threads through the load client, 1 reader of the written IDs). First the maximum mixed throughput
 * is measured for a few seconds (unpaced); then writes and reads are paced at 80% of it for 30 s,
 * or {@code -Ddocstore.torture.soak-seconds}, sampled every 5 s. Must hold: every window's
 * throughput within a factor of 3 of the median window; write and read p99 not trending up (the
 * last third of the windows within 3x, plus 50 ms, of the first third); heap after a full GC and
 * open file descriptors bounded; no ERROR line in the log; nothing refused or lost.
 */
class TortureSoakTest {

  private static final int WINDOW_SECONDS = 5;
  private static final int MEASURE_SECONDS = 4;
  private static final double LOAD_FRACTION = 0.8;

  @TempDir Path dir;

  @Test
  void steadyLoadAtEightyPercentStaysFlatAndBounded() throws Exception {
    long seed = TestSupport.seed("TortureSoakTest");
    int seconds = Integer.getInteger("docstore.torture.soak-seconds", 30 * TestSupport.scale());
    Path log = dir.resolve("serve.log");
    AckLedger ledger = new AckLedger();
    List<long[]> samples =
        new ArrayList<>(); // window, writes, reads, write p99 us, read p99 us, fds, rss kB
    long verified;
    double maxWrites;
    double maxReads;
    long heapStartKb;
    long heapEndKb;
    try (ServeJvm serve = ServeJvm.start(dir.resolve("data"), log, List.of())) {
      LoadClient load =
          new LoadClient(serve.adminUrl, ledger, seed, 2, 0, 2000, 1000, false).start();
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong reads = new AtomicLong();
      AtomicLong readErrors = new AtomicLong();
      Recorder readLatency = new Recorder(3);
      Pacer[] readPacer = {null};
      HttpReader reader = new HttpReader(serve.readUrl);
      Thread readerThread =
          new Thread(
              () -> {
                Random rnd = new Random(seed);
                while (!stop.get()) {
                  Pacer p = readPacer[0];
                  if (p != null) {
                    p.acquire();
                  }
                  long t0 = System.nanoTime();
                  try {
                    int status = reader.get("/docs/" + rnd.nextInt(4000)).statusCode();
                    if (status != 200 && status != 404) {
                      readErrors.incrementAndGet();
                    }
                  } catch (Exception e) {
                    readErrors.incrementAndGet();
                  }
                  readLatency.recordValue(Math.max(1, (System.nanoTime() - t0) / 1000));
                  reads.incrementAndGet();
                }
              },
              "soak-reader");
      try {
        readerThread.start();
        // Warm-up, then the maximum mixed throughput of these three clients, unpaced.
        Thread.sleep(2000);
        long w0 = load.sent();
        long r0 = reads.get();
        long t0 = System.nanoTime();
        Thread.sleep(TimeUnit.SECONDS.toMillis(MEASURE_SECONDS));
        double elapsed = (System.nanoTime() - t0) / 1e9;
        maxWrites = (load.sent() - w0) / elapsed;
        maxReads = (reads.get() - r0) / elapsed;
        load.pace(new Pacer(LOAD_FRACTION * maxWrites));
        readPacer[0] = new Pacer(LOAD_FRACTION * maxReads);
        System.out.printf(
            "TortureSoakTest max mixed throughput: writes/s=%.0f reads/s=%.0f; pacing at %.0f%%%n",
            maxWrites, maxReads, LOAD_FRACTION * 100);
        heapStartKb = heapAfterGcKb(serve.pid());
        load.takeLatency();
        readLatency.getIntervalHistogram();
        long lastWrites = load.sent();
        long lastReads = reads.get();
        for (int w = 0; w < Math.max(3, seconds / WINDOW_SECONDS); w++) {
          Thread.sleep(TimeUnit.SECONDS.toMillis(WINDOW_SECONDS));
          long writes = load.sent();
          long r = reads.get();
          Histogram wl = load.takeLatency();
          Histogram rl = readLatency.getIntervalHistogram();
          long[] s = {
            w,
            writes - lastWrites,
            r - lastReads,
            wl.getValueAtPercentile(99),
            rl.getValueAtPercentile(99),
            serve.openFds(),
            rssKb(serve.pid())
          };
          samples.add(s);
          System.out.printf(
              "TortureSoakTest t=%3ds writes/s=%6d reads/s=%6d write_p99=%7dus read_p99=%7dus fds=%4d rss=%6dkB%n",
              (w + 1) * WINDOW_SECONDS,
              s[1] / WINDOW_SECONDS,
              s[2] / WINDOW_SECONDS,
              s[3],
              s[4],
              s[5],
              s[6]);
          lastWrites = writes;
          lastReads = r;
        }
        heapEndKb = heapAfterGcKb(serve.pid());
        stop.set(true);
        readerThread.join(30_000);
        assertThat(readErrors.get()).as("failed reads").isZero();
        assertThat(load.errors()).as("failed writes").isZero();
        assertThat(load.rejected()).as("refused writes: %s", load.statuses()).isZero();
      } finally {
        stop.set(true);
        load.close();
      }
      verified = ledger.check(new HttpReader(serve.readUrl));
    }
    long fdFirst = samples.get(0)[5];
    long fdMax = samples.stream().mapToLong(s -> s[5]).max().orElse(0);
    long rssMax = samples.stream().mapToLong(s -> s[6]).max().orElse(0);
    long writesTotal = samples.stream().mapToLong(s -> s[1]).sum();
    long readsTotal = samples.stream().mapToLong(s -> s[2]).sum();
    long span = (long) samples.size() * WINDOW_SECONDS;
    Verdict.of(
            "soak",
            samples.size(),
            0,
            ledger,
            verified,
            0,
            "seconds="
                + span
                + String.format(" max_writes/s=%.0f max_reads/s=%.0f", maxWrites, maxReads)
                + " paced_at=80% writes/s="
                + writesTotal / span
                + " reads/s="
                + readsTotal / span
                + " heap_after_gc_kB="
                + heapStartKb
                + "->"
                + heapEndKb
                + " fds_first="
                + fdFirst
                + " fds_max="
                + fdMax
                + " rss_max_kB="
                + rssMax
                + " seed="
                + seed)
        .print();
    assertThat(ledger.failures()).isEmpty();

    // Flat throughput: every window within a factor of 3 of the median window (mixed ops).
    long[] mixed = samples.stream().mapToLong(s -> s[1] + s[2]).sorted().toArray();
    long median = mixed[mixed.length / 2];
    for (long[] s : samples) {
      assertThat(s[1] + s[2])
          .as("window %d throughput vs median %d", s[0], median)
          .isBetween(median / 3, median * 3);
    }
    // p99 not trending up: the last third of the windows against the first third.
    int third = Math.max(1, samples.size() / 3);
    for (int col : new int[] {3, 4}) {
      long first = mean(samples.subList(0, third), col);
      long last = mean(samples.subList(samples.size() - third, samples.size()), col);
      assertThat(last)
          .as(
              "%s p99 trend (us): first third %d, last third %d",
              col == 3 ? "write" : "read", first, last)
          .isLessThanOrEqualTo(3 * first + 50_000);
    }
    if (heapStartKb > 0 && heapEndKb > 0) {
      // Live heap after a full GC: the caches are bounded by configuration; growth means a leak.
      assertThat(heapEndKb)
          .as("heap after GC stays bounded (kB)")
          .isLessThan(Math.max(2 * heapStartKb, heapStartKb + 64 * 1024));
    }
    if (fdFirst > 0) {
      // Default 256 MiB segments: no file should stay open per request or per block.
      assertThat(fdMax).as("open file descriptors stay bounded").isLessThan(fdFirst + 64);
    }
    if (rssMax > 0) {
      assertThat(rssMax).as("resident memory stays bounded (heap -Xmx256m)").isLessThan(768 * 1024);
    }
    List<String> errors =
        Files.readAllLines(log).stream().filter(l -> l.contains(" ERROR ")).toList();
    assertThat(errors).as("ERROR lines in the serve log").isEmpty();
  }

  private static long mean(List<long[]> windows, int col) {
    return (long) windows.stream().mapToLong(s -> s[col]).average().orElse(0);
  }

  /**
   * The child's heap in use right after a full GC ({@code jcmd GC.run}, then {@code jstat -gc}):
   * the live set. -1 if the JDK tools are not available.
   */
  private static long heapAfterGcKb(long pid) {
    Path bin = Path.of(System.getProperty("java.home"), "bin");
    try {
      if (!run(bin.resolve("jcmd").toString(), Long.toString(pid), "GC.run").isEmpty()) {
        String[] lines =
            run(bin.resolve("jstat").toString(), "-gc", Long.toString(pid)).strip().split("\n");
        if (lines.length >= 2) {
          String[] head = lines[0].trim().split("\\s+");
          String[] vals = lines[lines.length - 1].trim().split("\\s+");
          Map<String, Double> m = new HashMap<>();
          for (int i = 0; i < Math.min(head.length, vals.length); i++) {
            if (vals[i].matches("[0-9.]+")) {
              m.put(head[i], Double.parseDouble(vals[i]));
            }
          }
          double used = 0;
          for (String k : Arrays.asList("S0U", "S1U", "EU", "OU")) {
            used += m.getOrDefault(k, 0.0);
          }
          return (long) used;
        }
      }
    } catch (IOException | RuntimeException e) {
      System.out.println("TortureSoakTest: heap after GC not measured: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return -1;
  }

  private static String run(String... cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0 ? out : "";
  }

  private static long rssKb(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("\\D+", ""));
        }
      }
    } catch (Exception e) {
      return -1;
    }
    return -1;
  }
}
