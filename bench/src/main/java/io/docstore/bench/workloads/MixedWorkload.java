package io.docstore.bench.workloads;

import com.google.common.util.concurrent.Uninterruptibles;
import io.docstore.bench.data.JobDocGenerator;
import io.docstore.bench.engines.Engine;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;

/**
 * Reads and writes mixed on several client threads over Zipf-skewed job documents, the shape of a
 * standard key-value benchmark's "mostly reads" and "half writes" mixes (docs/benchmarks/mixed.md).
 *
 * <p>Load (phase {@code load}, reported apart): N job documents ({@link JobDocGenerator}, ~1.1 KB)
 * in ID order, {@code batch} puts per {@link Engine#flush()}, as the jobs workload writes. Then,
 * for each write percentage W (by default 5 and 50, one after the other on the same engine): wait
 * for the engine's background work to end (at most {@code seconds}; an engine that cannot tell
 * waits that long), then T threads run for {@code seconds}, each drawing a Zipf-skewed document (s
 * = 1.0, {@link ZipfSampler}, ranks spread over the IDs as in the jobs workload) and with
 * probability W writing a new version of it, else reading it.
 *
 * <p>A write is {@code put} then {@code flush}: under the engines' shared contract a put is
 * acknowledged (readable, survives a process crash) only by a flush, so one write pays the engine's
 * whole durability step, timed as one operation. A read is one {@code get}, verified: it must
 * return, byte for byte, a version of that document that was written (the load's or one of this
 * run's). Which version is not checked: two threads may write the same hot document at once, and
 * the engines order concurrent writes as they commit them.
 *
 * <p>Phases per W, e.g. for 5%: {@code w5} (every operation; ops/s is the whole mix), {@code
 * w5-read} and {@code w5-write} (latencies of that kind; ops/s is that kind's share of the same
 * mix). Ops/s is over time inside engine calls, as in the other workloads, here averaged over the
 * threads (the sum of every thread's engine time divided by T), so input generation and
 * verification do not cap a fast engine; the phase's {@code seconds} is its wall time.
 */
public final class MixedWorkload implements Workload {

  private final int threads;
  private final int seconds;
  private final List<Integer> writePercents;
  private final Consumer<String> notes;

  /**
   * "5,50" -> [5, 50]: write percentages as {@code --mixed-writes} gives them, each 0..100. Here,
   * not in the runner's options: every engine JVM parses them too, the lsmtree one without picocli
   * on its class path.
   */
  public static List<Integer> writePercents(String csv) {
    List<Integer> out = new ArrayList<>();
    for (String s : csv.split(",")) {
      if (s.isBlank()) {
        continue;
      }
      int p = Integer.parseInt(s.trim());
      if (p < 0 || p > 100) {
        throw new IllegalArgumentException("write percentage must be 0..100, got " + p);
      }
      out.add(p);
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("no write percentage in " + csv);
    }
    return List.copyOf(out);
  }

  /**
   * @param threads client threads of each measured run
   * @param seconds length of each measured run, and cap on the wait for background work before it
   * @param writePercents one measured run per entry, in order: the percentage of operations that
   *     write
   * @param notes collects NOTE lines for the table
   */
  public MixedWorkload(
      int threads, int seconds, List<Integer> writePercents, Consumer<String> notes) {
    if (threads < 1 || seconds < 1 || writePercents.isEmpty()) {
      throw new IllegalArgumentException(
          "mixed needs at least one thread, one second and one write percentage");
    }
    for (int w : writePercents) {
      if (w < 0 || w > 100) {
        throw new IllegalArgumentException("write percentage must be 0..100, got " + w);
      }
    }
    this.threads = threads;
    this.seconds = seconds;
    this.writePercents = List.copyOf(writePercents);
    this.notes = notes;
  }

  @Override
  public String name() {
    return "mixed";
  }

  @Override
  public List<PhaseResult> run(WorkloadContext ctx) throws IOException {
    WorkloadParams p = ctx.params();
    if (p.keys() > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "mixed keeps a version counter per document: at most " + Integer.MAX_VALUE);
    }
    try (Engine engine = ctx.opener().open()) {
      List<PhaseResult> phases = new ArrayList<>();
      phases.add(JobLoad.load(engine, p, "load"));
      AtomicIntegerArray versions = new AtomicIntegerArray((int) p.keys());
      for (int i = 0; i < writePercents.size(); i++) {
        int w = writePercents.get(i);
        notes.accept(settle(engine, "w" + w));
        phases.addAll(measure(engine, p, w, p.seed() + 100L * (i + 1), versions));
      }
      return phases;
    }
  }

  /**
   * Waits until the engine says no flush or compaction is running (seen idle for 100 ms in a row),
   * at most {@link #seconds}; an engine that cannot tell ({@code -1}: LevelDB, lsmtree) waits the
   * whole time, the longest any engine waits.
   */
  private String settle(Engine engine, String run) throws IOException {
    long start = System.nanoTime();
    long cap = seconds * 1_000_000_000L;
    long idleSince = -1;
    boolean knows = engine.backgroundJobs() >= 0;
    while (System.nanoTime() - start < cap) {
      int jobs = engine.backgroundJobs();
      if (jobs == 0) {
        long now = System.nanoTime();
        idleSince = idleSince < 0 ? now : idleSince;
        if (now - idleSince >= 100_000_000L) {
          break;
        }
      } else if (jobs > 0) {
        idleSince = -1;
      }
      LockSupport.parkNanos(10_000_000L);
    }
    double waited = (System.nanoTime() - start) / 1e9;
    if (!knows) {
      return String.format(
          Locale.ROOT,
          "%s: waited %.1f s before the run (the engine does not say when its"
              + " background work ends)",
          run,
          waited);
    }
    return String.format(
        Locale.ROOT,
        "%s: waited %.1f s for background work before the run%s",
        run,
        waited,
        engine.backgroundJobs() > 0 ? " and it was still running" : "");
  }

  private List<PhaseResult> measure(
      Engine engine, WorkloadParams p, int writePercent, long seed, AtomicIntegerArray versions)
      throws IOException {
    String name = "w" + writePercent;
    long n = p.keys();
    long stride = JobsWorkload.coprimeStride(n);
    CyclicBarrier start = new CyclicBarrier(threads + 1);
    AtomicBoolean failed = new AtomicBoolean();
    Client[] clients = new Client[threads];
    Thread[] running = new Thread[threads];
    for (int t = 0; t < threads; t++) {
      clients[t] = new Client(engine, n, stride, writePercent, seed + t, versions, start, failed);
      running[t] = new Thread(clients[t], "bench-mixed-" + t);
      running[t].start();
    }
    ProcSelf.Io ioBefore;
    long begin;
    try {
      ioBefore = ProcSelf.io();
      begin = System.nanoTime();
      for (Client c : clients) {
        c.deadline = begin + seconds * 1_000_000_000L;
      }
      start.await();
    } catch (Exception e) {
      failed.set(true);
      start.reset();
      for (Thread t : running) {
        Uninterruptibles.joinUninterruptibly(t);
      }
      throw new IOException("mixed clients did not start", e);
    }
    for (Thread t : running) {
      Uninterruptibles.joinUninterruptibly(t);
    }
    long nanos = System.nanoTime() - begin;
    ProcSelf.Io io = ProcSelf.io().minus(ioBefore);
    Histogram all = PhaseResult.newHistogram();
    Histogram reads = PhaseResult.newHistogram();
    Histogram writes = PhaseResult.newHistogram();
    long readOps = 0;
    long writeOps = 0;
    long engineNanos = 0;
    long misses = 0;
    long wrong = 0;
    for (Client c : clients) {
      if (c.failure != null) {
        throw new IOException(name + " client failed", c.failure);
      }
      reads.add(c.reads);
      writes.add(c.writes);
      readOps += c.readOps;
      writeOps += c.writeOps;
      engineNanos += c.engineNanos;
      misses += c.misses;
      wrong += c.wrong;
    }
    all.add(reads);
    all.add(writes);
    long perThreadEngineNanos = engineNanos / threads;
    return List.of(
        new PhaseResult(
            name, readOps + writeOps, nanos, perThreadEngineNanos, all, misses, wrong, io),
        new PhaseResult(
            name + "-read",
            readOps,
            nanos,
            perThreadEngineNanos,
            reads,
            misses,
            wrong,
            ProcSelf.Io.NONE),
        new PhaseResult(
            name + "-write",
            writeOps,
            nanos,
            perThreadEngineNanos,
            writes,
            0,
            0,
            ProcSelf.Io.NONE));
  }

  /**
   * True when {@code value} is, byte for byte, document {@code id} at some version 0..{@code
   * newest}. Tries the newest first: a read nearly always returns it or one just before.
   */
  static boolean isWrittenVersion(byte[] value, long id, int newest) {
    if (!ReadWhileWritingWorkload.hasId(value, id)) {
      return false;
    }
    for (int v = newest; v >= 0; v--) {
      if (Arrays.equals(value, JobDocGenerator.document(id, v))) {
        return true;
      }
    }
    return false;
  }

  /** One client thread of a measured run. */
  private static final class Client implements Runnable {
    private final Engine engine;
    private final long n;
    private final long stride;
    private final int writePercent;
    private final ZipfSampler zipf;
    private final SplittableRandom random;
    private final AtomicIntegerArray versions;
    private final CyclicBarrier start;
    private final AtomicBoolean failed;
    final Histogram reads = PhaseResult.newHistogram();
    final Histogram writes = PhaseResult.newHistogram();
    volatile long deadline;
    long readOps;
    long writeOps;
    long engineNanos;
    long misses;
    long wrong;
    volatile Throwable failure;

    Client(
        Engine engine,
        long n,
        long stride,
        int writePercent,
        long seed,
        AtomicIntegerArray versions,
        CyclicBarrier start,
        AtomicBoolean failed) {
      this.engine = engine;
      this.n = n;
      this.stride = stride;
      this.writePercent = writePercent;
      this.zipf = new ZipfSampler(n, seed);
      this.random = new SplittableRandom(seed ^ 0x5DEECE66DL);
      this.versions = versions;
      this.start = start;
      this.failed = failed;
    }

    @Override
    public void run() {
      try {
        start.await();
        long end = deadline;
        while (System.nanoTime() < end && !failed.get()) {
          long id = Math.floorMod((zipf.next() - 1) * stride + 7, n);
          byte[] key = Keys.bytes(id);
          if (random.nextInt(100) < writePercent) {
            write(id, key);
          } else {
            read(id, key);
          }
        }
      } catch (Throwable t) {
        failure = t;
        failed.set(true);
      }
    }

    private void write(long id, byte[] key) throws IOException {
      byte[] doc = JobDocGenerator.document(id, versions.incrementAndGet((int) id));
      long t0 = System.nanoTime();
      engine.put(key, doc);
      engine.flush();
      long nanos = Math.max(0, System.nanoTime() - t0);
      writes.recordValue(nanos);
      engineNanos += nanos;
      writeOps++;
    }

    private void read(long id, byte[] key) throws IOException {
      long t0 = System.nanoTime();
      byte[] value = engine.get(key);
      long nanos = Math.max(0, System.nanoTime() - t0);
      reads.recordValue(nanos);
      engineNanos += nanos;
      readOps++;
      if (value == null) {
        misses++;
      } else if (!isWrittenVersion(value, id, versions.get((int) id))) {
        wrong++;
      }
    }
  }
}
