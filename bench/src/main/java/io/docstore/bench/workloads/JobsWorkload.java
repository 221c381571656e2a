package io.docstore.bench.workloads;

import io.docstore.bench.data.JobDocGenerator;
import io.docstore.bench.engines.Engine;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The article's job documents: N ~1.1 KB JSON jobs written in ID order, and after every second new
 * job one older job updated once more (job (i-1)/2 after job i, so jobs 0..N/2-1 get a second
 * version: 1.5 writes per job); then reads with Zipf-skewed IDs (s = 1.0, rank to ID through a
 * fixed pseudo-random bijection, so hot jobs are spread over the key space), 10% of them IDs that
 * were never written. Every read is verified against the version it must see.
 */
public final class JobsWorkload implements Workload {

  @Override
  public String name() {
    return "jobs";
  }

  @Override
  public List<PhaseResult> run(WorkloadContext ctx) throws IOException {
    WorkloadParams p = ctx.params();
    try (Engine engine = ctx.opener().open()) {
      PhaseResult write = write(engine, p);
      PhaseResult read = read(engine, p);
      return List.of(write, read);
    }
  }

  /** The version job {@code id} ends with after the write phase of a run of {@code n} jobs. */
  static int finalVersion(long id, long n) {
    return id < n / 2 ? 1 : 0;
  }

  private static PhaseResult write(Engine engine, WorkloadParams p) throws IOException {
    long n = p.keys();
    PhaseTimer timer = new PhaseTimer("write");
    long ops = 0;
    for (long i = 0; i < n; i++) {
      ops++;
      put(engine, timer, i, 0, ops % p.batch() == 0);
      if ((i & 1) == 1) {
        ops++;
        put(engine, timer, (i - 1) / 2, 1, ops % p.batch() == 0);
      }
    }
    long flushStart = System.nanoTime();
    engine.flush();
    timer.addEngineTime(System.nanoTime() - flushStart);
    return timer.finish(ops, 0, 0);
  }

  private static void put(Engine engine, PhaseTimer timer, long id, int version, boolean flush)
      throws IOException {
    byte[] doc = JobDocGenerator.document(id, version);
    byte[] key = Keys.bytes(id);
    long t0 = System.nanoTime();
    engine.put(key, doc);
    if (flush) {
      engine.flush();
    }
    timer.record(System.nanoTime() - t0);
  }

  private static PhaseResult read(Engine engine, WorkloadParams p) throws IOException {
    long n = p.keys();
    ZipfSampler zipf = new ZipfSampler(n, p.seed());
    SplittableRandom random = new SplittableRandom(p.seed() + 1);
    long stride = coprimeStride(n);
    PhaseTimer timer = new PhaseTimer("read");
    long misses = 0;
    long wrong = 0;
    for (long r = 0; r < p.reads(); r++) {
      boolean absent = random.nextInt(10) == 0;
      long id = absent ? n + random.nextLong(n) : Math.floorMod((zipf.next() - 1) * stride + 7, n);
      byte[] key = Keys.bytes(id);
      long t0 = System.nanoTime();
      byte[] value = engine.get(key);
      timer.record(System.nanoTime() - t0);
      if (absent) {
        wrong += value == null ? 0 : 1;
      } else if (value == null) {
        misses++;
      } else if (!Arrays.equals(value, JobDocGenerator.document(id, finalVersion(id, n)))) {
        wrong++;
      }
    }
    return timer.finish(p.reads(), misses, wrong);
  }

  /** A multiplier coprime to n near n times the golden ratio: rank -> ID is then a bijection. */
  static long coprimeStride(long n) {
    long s = (long) (n * 0.6180339887) | 1;
    while (gcd(s, n) != 1) {
      s += 2;
    }
    return s;
  }

  private static long gcd(long a, long b) {
    while (b != 0) {
      long t = a % b;
      a = b;
      b = t;
    }
    return a;
  }
}
