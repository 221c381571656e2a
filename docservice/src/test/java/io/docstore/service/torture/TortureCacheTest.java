package io.docstore.service.torture;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.TestSupport;
import io.docstore.service.ServiceFixture;
import io.docstore.service.testing.MemcachedProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenario 7: the memcached tier killed, restarted empty, made slow (a delaying proxy) and paused
 * (SIGSTOP), under a read-after-write load. Each thread owns its IDs; after every acknowledged PUT
 * or DELETE it reads the ID back and between writes reads its other IDs: a version older than the
 * acknowledged one (stale cache) or a failed read is counted and fails the test. Read latency per
 * phase shows reads fall back to the disk path within the cache timeout, not to HTTP timeouts.
 */
class TortureCacheTest {

  private static final int THREADS = 3;
  private static final int IDS = 100;

  @TempDir Path dir;

  @Test
  void noStaleReadsAndNoTimeoutsWhatever_memcachedDoes() throws Exception {
    long seed = TestSupport.seed("TortureCacheTest");
    long phaseMillis = 1500L * TestSupport.scale();
    try (MemcachedProcess mc = MemcachedProcess.start();
        DelayProxy proxy = new DelayProxy(mc.address());
        ServiceFixture s =
            ServiceFixture.start(
                dir,
                Map.of(
                    "docstore.cache.memcached.servers", List.of("127.0.0.1:" + proxy.port()),
                    "docstore.cache.memcached.timeout", "50ms",
                    "docstore.http.request-timeout", "5s"))) {
      Checker checker = new Checker(s.service.readUrl(), s.service.adminUrl(), seed);
      List<String> phases = new ArrayList<>();
      long faults = 0;
      phases.add(checker.run("cache-up", phaseMillis));
      mc.kill();
      faults++;
      phases.add(checker.run("memcached-killed", phaseMillis));
      mc.restart();
      faults++;
      phases.add(checker.run("restarted-empty", phaseMillis));
      proxy.delay(200);
      faults++;
      phases.add(checker.run("slow-200ms", phaseMillis));
      proxy.delay(0);
      mc.pause(true);
      faults++;
      phases.add(checker.run("paused", phaseMillis));
      mc.pause(false);
      phases.add(checker.run("resumed", phaseMillis));
      phases.forEach(p -> System.out.println("TortureCacheTest " + p));
      new Verdict(
              "memcached-faults",
              phases.size(),
              faults,
              checker.acked.get(),
              checker.verified.get(),
              checker.stale.get() + checker.failed.get(),
              0,
              "stale="
                  + checker.stale.get()
                  + " failed_reads="
                  + checker.failed.get()
                  + " seed="
                  + seed)
          .print();
      assertThat(checker.problems).isEmpty();
      assertThat(checker.acked.get()).isPositive();
    }
  }

  /** Read-after-write load with a per-phase read latency histogram. */
  private static final class Checker {
    final HttpClient http =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1)
            .build();
    final String readUrl;
    final String adminUrl;
    final long seed;
    final AtomicLong acked = new AtomicLong();
    final AtomicLong verified = new AtomicLong();
    final AtomicLong stale = new AtomicLong();
    final AtomicLong failed = new AtomicLong();
    final List<String> problems = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** Per ID: the acknowledged body ({@code null} = deleted or never written) and sequence. */
    final byte[][] body = new byte[THREADS * IDS][];

    final long[] seq = new long[THREADS * IDS];
    int round;

    Checker(String readUrl, String adminUrl, long seed) {
      this.readUrl = readUrl;
      this.adminUrl = adminUrl;
      this.seed = seed;
    }

    String run(String phase, long millis) throws InterruptedException {
      Histogram reads = new Histogram(3);
      AtomicBoolean stop = new AtomicBoolean();
      List<Thread> threads = new ArrayList<>();
      int r = round++;
      for (int t = 0; t < THREADS; t++) {
        int owner = t;
        Random rnd = new Random(seed + r * 101L + t);
        Thread th = new Thread(() -> work(owner, rnd, stop, reads), "cache-checker-" + t);
        th.start();
        threads.add(th);
      }
      Thread.sleep(millis);
      stop.set(true);
      for (Thread th : threads) {
        th.join(60_000);
      }
      synchronized (reads) {
        return String.format(
            "%-17s reads=%d p50=%dus p99=%dus max=%dus",
            phase,
            reads.getTotalCount(),
            reads.getValueAtPercentile(50),
            reads.getValueAtPercentile(99),
            reads.getMaxValue());
      }
    }

    private void work(int owner, Random rnd, AtomicBoolean stop, Histogram reads) {
      long counter = 0;
      while (!stop.get()) {
        int idx = owner * IDS + rnd.nextInt(IDS);
        try {
          if (rnd.nextInt(3) == 0) {
            boolean delete = rnd.nextInt(5) == 0;
            byte[] b = delete ? null : LoadClient.body(rnd, idx, counter++, 300);
            HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(adminUrl + "/docs/" + idx));
            HttpResponse<String> w =
                http.send(
                    (delete ? req.DELETE() : req.PUT(HttpRequest.BodyPublishers.ofByteArray(b)))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (w.statusCode() != 200) {
              problems.add("write " + idx + " answered " + w.statusCode() + " " + w.body());
              continue;
            }
            body[idx] = b;
            seq[idx] = Long.parseLong(w.body().replaceAll(".*\"seq\":(\\d+).*", "$1"));
            acked.incrementAndGet();
          }
          long t0 = System.nanoTime();
          HttpResponse<byte[]> g =
              http.send(
                  HttpRequest.newBuilder(URI.create(readUrl + "/docs/" + idx))
                      .timeout(Duration.ofSeconds(10))
                      .build(),
                  HttpResponse.BodyHandlers.ofByteArray());
          long micros = Math.max(1, (System.nanoTime() - t0) / 1000);
          synchronized (reads) {
            reads.recordValue(micros);
          }
          if (body[idx] == null
              ? g.statusCode() == 404
              : g.statusCode() == 200
                  && Arrays.equals(g.body(), body[idx])
                  && g.headers().firstValue("etag").orElse("").equals("\"" + seq[idx] + "\"")) {
            verified.incrementAndGet();
          } else if (g.statusCode() == 200 || g.statusCode() == 404) {
            stale.incrementAndGet();
            problems.add(
                "stale read of "
                    + idx
                    + ": status "
                    + g.statusCode()
                    + " etag "
                    + g.headers().firstValue("etag").orElse("-")
                    + ", acknowledged seq "
                    + seq[idx]);
          } else {
            failed.incrementAndGet();
            problems.add("read of " + idx + " answered " + g.statusCode());
          }
        } catch (Exception e) {
          failed.incrementAndGet();
          problems.add("request failed: " + e);
        }
      }
    }
  }
}
