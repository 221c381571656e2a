package io.docstore.bench.workloads;

import io.docstore.bench.engines.Engine;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The Indeed article's table: N puts of 8-byte random keys with 96-byte random values in random
 * order, then reads of every key in another random order, single-threaded, every value verified.
 *
 * <p>The cold variant (indeed-kv-512m) closes the engine after the writes, lets the runner evict
 * the files' pages and put this JVM under a memory limit, reopens the engine and reads for at most
 * {@code coldSeconds}: then the reads measure the disk, not the page cache.
 */
public final class IndeedKvWorkload implements Workload {

  static final int VALUE_BYTES = 96;

  private final boolean cold;

  public IndeedKvWorkload(boolean cold) {
    this.cold = cold;
  }

  @Override
  public String name() {
    return cold ? "indeed-kv-512m" : "indeed-kv";
  }

  @Override
  public List<PhaseResult> run(WorkloadContext ctx) throws IOException {
    WorkloadParams p = ctx.params();
    int n = Math.toIntExact(p.keys());
    List<PhaseResult> results = new ArrayList<>();
    Engine engine = ctx.opener().open();
    try {
      results.add(write(engine, n, p));
      if (cold) {
        engine.close();
        engine = null;
        ctx.coldStart().prepare();
        engine = ctx.opener().open();
      }
      long capNanos = cold ? p.coldSeconds() * 1_000_000_000L : Long.MAX_VALUE;
      results.add(read(engine, n, p.seed(), capNanos));
    } finally {
      if (engine != null) {
        engine.close();
      }
    }
    return results;
  }

  private static PhaseResult write(Engine engine, int n, WorkloadParams p) throws IOException {
    PhaseTimer timer = new PhaseTimer("write");
    int batch = p.batch();
    for (int i = 0; i < n; i++) {
      long k = Keys.randomKey(p.seed(), i);
      byte[] key = Keys.bytes(k);
      byte[] value = Keys.valueFor(k, VALUE_BYTES);
      long t0 = System.nanoTime();
      engine.put(key, value);
      if ((i + 1) % batch == 0) {
        engine.flush();
      }
      timer.record(System.nanoTime() - t0);
    }
    long flushStart = System.nanoTime();
    engine.flush();
    timer.addEngineTime(System.nanoTime() - flushStart);
    return timer.finish(n, 0, 0);
  }

  private static PhaseResult read(Engine engine, int n, long seed, long capNanos)
      throws IOException {
    int[] order = Keys.permutation(n, seed ^ 0x5DEECE66DL);
    PhaseTimer timer = new PhaseTimer("read");
    long misses = 0;
    long wrong = 0;
    int done = 0;
    for (int i = 0; i < n; i++) {
      if ((i & 1023) == 0 && timer.elapsedNanos() > capNanos) {
        break;
      }
      long k = Keys.randomKey(seed, order[i]);
      byte[] key = Keys.bytes(k);
      long t0 = System.nanoTime();
      byte[] value = engine.get(key);
      timer.record(System.nanoTime() - t0);
      if (value == null) {
        misses++;
      } else if (!Arrays.equals(value, Keys.valueFor(k, VALUE_BYTES))) {
        wrong++;
      }
      done++;
    }
    return timer.finish(done, misses, wrong);
  }
}
