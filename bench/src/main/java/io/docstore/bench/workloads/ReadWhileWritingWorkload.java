package io.docstore.bench.workloads;

import com.google.common.util.concurrent.Uninterruptibles;
import io.docstore.bench.data.JobDocGenerator;
import io.docstore.bench.engines.Engine;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * One reader thread of uniformly random job IDs, first alone for {@code rwSeconds} (after the
 * preload, with the engine's background work given time to settle), then for as long again next to
 * one writer that updates random jobs at a fixed rate. The reader's p99.9 under writes against its
 * p99.9 alone shows how much the engine's writes get in the way of reads. For engines that say
 * whether a flush or compaction is running ({@link Engine#backgroundJobs()}: docstore, RocksDB;
 * LMDB has none), a sampler polls that every millisecond and the reads under writes are also split
 * into those that overlapped background work and those that did not: the target "p99.9 during
 * compaction vs without". Both read phases also keep the p99 of each 1-second window ({@code
 * p99_us_per_s}, charted by the runner over time). Reads are verified by the document's ID prefix,
 * since any version is right.
 */
public final class ReadWhileWritingWorkload implements Workload {

  @Override
  public String name() {
    return "readwhilewriting";
  }

  @Override
  public List<PhaseResult> run(WorkloadContext ctx) throws IOException {
    WorkloadParams p = ctx.params();
    try (Engine engine = ctx.opener().open()) {
      PhaseResult preload = JobLoad.load(engine, p, "preload");
      PhaseResult alone = read("read-alone", engine, p, p.seed() + 1, null).get(0);
      Sampler sampler = engine.backgroundJobs() >= 0 ? new Sampler(engine) : null;
      Thread samplerThread =
          sampler == null ? null : new Thread(sampler, "bench-background-sampler");
      Writer writer = new Writer(engine, p);
      Thread thread = new Thread(writer, "bench-writer");
      if (samplerThread != null) {
        samplerThread.start();
      }
      thread.start();
      List<PhaseResult> underWrites;
      try {
        underWrites = read("read-under-writes", engine, p, p.seed() + 2, sampler);
      } finally {
        writer.stop.set(true);
        Uninterruptibles.joinUninterruptibly(thread);
        if (sampler != null) {
          sampler.stop.set(true);
          Uninterruptibles.joinUninterruptibly(samplerThread);
        }
      }
      if (writer.failure != null) {
        throw new IOException("writer failed", writer.failure);
      }
      if (sampler != null && sampler.failure != null) {
        throw new IOException("background sampler failed", sampler.failure);
      }
      List<PhaseResult> phases = new ArrayList<>(List.of(preload, alone));
      phases.addAll(underWrites);
      phases.add(writer.result);
      return phases;
    }
  }

  /**
   * Reads for {@code rwSeconds}; with a sampler, also the same reads split by whether the engine's
   * background work overlapped them (seen running just before or just after the read).
   */
  private static List<PhaseResult> read(
      String phase, Engine engine, WorkloadParams p, long seed, Sampler sampler)
      throws IOException {
    SplittableRandom random = new SplittableRandom(seed);
    PhaseTimer timer = new PhaseTimer(phase);
    PhaseTimer busy = PhaseTimer.subset("reads-during-flush-or-compaction");
    PhaseTimer quiet = PhaseTimer.subset("reads-without-background-work");
    long busyOps = 0;
    long capNanos = p.rwSeconds() * 1_000_000_000L;
    Windows windows = new Windows();
    long ops = 0;
    long misses = 0;
    long wrong = 0;
    while ((ops & 255) != 0 || timer.elapsedNanos() < capNanos) {
      long id = random.nextLong(p.keys());
      byte[] key = Keys.bytes(id);
      boolean busyBefore = sampler != null && sampler.busy;
      long t0 = System.nanoTime();
      byte[] value = engine.get(key);
      long nanos = System.nanoTime() - t0;
      timer.record(nanos);
      windows.record(t0, nanos);
      ops++;
      if (sampler != null) {
        if (busyBefore || sampler.busy) {
          busy.record(nanos);
          busyOps++;
        } else {
          quiet.record(nanos);
        }
      }
      if (value == null) {
        misses++;
      } else if (!hasId(value, id)) {
        wrong++;
      }
    }
    PhaseResult all = timer.finish(ops, misses, wrong).withP99PerSecond(windows.finish());
    if (sampler == null) {
      return List.of(all);
    }
    return List.of(all, busy.finish(busyOps, 0, 0), quiet.finish(ops - busyOps, 0, 0));
  }

  /**
   * The p99 of each 1-second window of a phase's reads (by when the read started), for the chart of
   * latency over time; a last window shorter than half a second is left out.
   */
  static final class Windows {
    private static final long WINDOW_NANOS = 1_000_000_000L;
    private final Histogram window = PhaseResult.newHistogram();
    private final List<Double> p99s = new ArrayList<>();
    private long windowStart = Long.MIN_VALUE;
    private long last;

    void record(long startNanos, long nanos) {
      if (windowStart == Long.MIN_VALUE) {
        windowStart = startNanos;
      }
      while (startNanos - windowStart >= WINDOW_NANOS) {
        close();
        windowStart += WINDOW_NANOS;
      }
      window.recordValue(Math.max(0, nanos));
      last = startNanos;
    }

    private void close() {
      // A window without reads (one read outlasted it) has no p99 of its own: 0, left out of the
      // chart.
      p99s.add(window.getTotalCount() == 0 ? 0.0 : window.getValueAtPercentile(99) / 1e3);
      window.reset();
    }

    List<Double> finish() {
      if (window.getTotalCount() > 0 && last - windowStart >= WINDOW_NANOS / 2) {
        close();
      }
      return p99s;
    }
  }

  static boolean hasId(byte[] doc, long id) {
    byte[] prefix = ("{\"id\":" + id + ",").getBytes(StandardCharsets.UTF_8);
    if (doc.length < prefix.length) {
      return false;
    }
    for (int i = 0; i < prefix.length; i++) {
      if (doc[i] != prefix[i]) {
        return false;
      }
    }
    return true;
  }

  /** Polls {@link Engine#backgroundJobs()} about every millisecond until stopped. */
  private static final class Sampler implements Runnable {
    final AtomicBoolean stop = new AtomicBoolean();
    private final Engine engine;
    volatile boolean busy;
    volatile Throwable failure;

    Sampler(Engine engine) {
      this.engine = engine;
    }

    @Override
    public void run() {
      try {
        while (!stop.get()) {
          busy = engine.backgroundJobs() > 0;
          LockSupport.parkNanos(1_000_000);
        }
      } catch (Throwable t) {
        failure = t;
      }
    }
  }

  /**
   * Updates random jobs at a fixed rate until stopped; a late writer catches up without sleeping.
   */
  private static final class Writer implements Runnable {
    final AtomicBoolean stop = new AtomicBoolean();
    private final Engine engine;
    private final WorkloadParams p;
    volatile PhaseResult result;
    volatile Throwable failure;

    Writer(Engine engine, WorkloadParams p) {
      this.engine = engine;
      this.p = p;
    }

    @Override
    public void run() {
      SplittableRandom random = new SplittableRandom(p.seed() + 3);
      long intervalNanos = 1_000_000_000L / p.writeRate();
      PhaseTimer timer = new PhaseTimer("writer");
      long start = System.nanoTime();
      long ops = 0;
      try {
        while (!stop.get()) {
          long due = start + ops * intervalNanos;
          long wait = due - System.nanoTime();
          if (wait > 0) {
            LockSupport.parkNanos(wait);
            continue;
          }
          long id = random.nextLong(p.keys());
          byte[] doc = JobDocGenerator.document(id, 1 + (int) (ops % 1000));
          long t0 = System.nanoTime();
          engine.put(Keys.bytes(id), doc);
          ops++;
          if (ops % p.batch() == 0) {
            engine.flush();
          }
          timer.record(System.nanoTime() - t0);
        }
        engine.flush();
      } catch (Throwable t) {
        failure = t;
      }
      result = timer.finishAtWallClockRate(ops);
    }
  }
}
