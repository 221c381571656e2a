package io.docstore.service.torture;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.TestSupport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 9: soak. A {@code serve} JVM with the default configuration under a fixed mixed load (writes through the load client,
 * reads of the written IDs) for 30 s, or {@code -Ddocstore.torture.soak-seconds}: throughput and
 * p99 are printed per 5 s window; open file descriptors and resident memory of the child stay
 * bounded; the log holds no ERROR line; every acknowledged write reads back at the end.
 */
class TortureSoakTest {

  @TempDir Path dir;

  @Test
  void steadyLoadKeepsResourcesBoundedAndLogsClean() throws Exception {
    long seed = TestSupport.seed("TortureSoakTest");
    int seconds = Integer.getInteger("docstore.torture.soak-seconds", 30 * TestSupport.scale());
    Path log = dir.resolve("serve.log");
    AckLedger ledger = new AckLedger();
    List<long[]> samples = new ArrayList<>(); // window, writes, reads, write p99 us, read p99 us, fds, rss kB
    long verified;
    try (ServeJvm serve = ServeJvm.start(dir.resolve("data"), log, List.of())) {
      LoadClient load = new LoadClient(serve.adminUrl, ledger, seed, 2, 0, 2000, 1000, false).start();
      try {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong reads = new AtomicLong();
        AtomicLong readErrors = new AtomicLong();
        Recorder readLatency = new Recorder(3);
        HttpReader reader = new HttpReader(serve.readUrl);
        Thread readerThread = new Thread(() -> {
          Random rnd = new Random(seed);
          while (!stop.get()) {
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
        }, "soak-reader");
        readerThread.start();
        long lastWrites = 0;
        long lastReads = 0;
        for (int w = 0; w < Math.max(1, seconds / 5); w++) {
          Thread.sleep(5000); // the sampling period
          long writes = load.sent();
          long r = reads.get();
          Histogram wl = load.takeLatency();
          Histogram rl = readLatency.getIntervalHistogram();
          long[] s = {w, writes - lastWrites, r - lastReads, wl.getValueAtPercentile(99), rl.getValueAtPercentile(99),
              serve.openFds(), rssKb(serve.pid())};
          samples.add(s);
          System.out.printf("TortureSoakTest t=%3ds writes/s=%6d reads/s=%6d write_p99=%7dus read_p99=%7dus fds=%4d rss=%6dkB%n",
              (w + 1) * 5, s[1] / 5, s[2] / 5, s[3], s[4], s[5], s[6]);
          lastWrites = writes;
          lastReads = r;
        }
        stop.set(true);
        readerThread.join(30_000);
        assertThat(readErrors.get()).as("failed reads").isZero();
        assertThat(load.errors()).as("failed writes").isZero();
        assertThat(load.rejected()).as("refused writes: %s", load.statuses()).isZero();
      } finally {
        load.close();
      }
      verified = ledger.check(new HttpReader(serve.readUrl));
    }
    long fdFirst = samples.get(0)[5];
    long fdMax = samples.stream().mapToLong(s -> s[5]).max().orElse(0);
    long rssMax = samples.stream().mapToLong(s -> s[6]).max().orElse(0);
    long writesTotal = samples.stream().mapToLong(s -> s[1]).sum();
    new Verdict("soak", samples.size(), 0, ledger.acknowledged(), verified, ledger.failures().size(), 0,
        "seconds=" + samples.size() * 5 + " writes/s=" + writesTotal / Math.max(1, samples.size() * 5L)
            + " fds_first=" + fdFirst + " fds_max=" + fdMax + " rss_max_kB=" + rssMax + " seed=" + seed).print();
    assertThat(ledger.failures()).isEmpty();
    if (fdFirst > 0) {
      // Default 256 MiB segments: no file should stay open per request or per block.
      assertThat(fdMax).as("open file descriptors stay bounded").isLessThan(fdFirst + 64);
    }
    if (rssMax > 0) {
      assertThat(rssMax).as("resident memory stays bounded (heap -Xmx256m)").isLessThan(768 * 1024);
    }
    List<String> errors = Files.readAllLines(log).stream().filter(l -> l.contains(" ERROR ")).toList();
    assertThat(errors).as("ERROR lines in the serve log").isEmpty();
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
