package io.docstore.bench.workloads;

import io.docstore.bench.data.JobDocGenerator;
import io.docstore.bench.engines.BulkInput;
import io.docstore.bench.engines.Engine;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * The bulk import (the Rockset article: big batches, parallel compression and sorting, index files
 * built off the write path): N job documents from an NDJSON file ({@link BulkInput}, generated once
 * and shared by every engine's JVM) loaded as fast as each engine can ({@link Engine#bulkLoad});
 * the phase's time covers the load call, which returns with everything readable and durable per the
 * engine contract. Then a sample of the documents is read back and verified, once on the open
 * engine and once after closing and reopening it. The table's figure is MB/s of input.
 */
public final class BulkWorkload implements Workload {

  private final Path input;
  private final int threads;
  private final Consumer<String> notes;

  public BulkWorkload(Path input, int threads, Consumer<String> notes) {
    this.input = input;
    this.threads = threads;
    this.notes = notes;
  }

  @Override
  public String name() {
    return "bulk";
  }

  @Override
  public List<PhaseResult> run(WorkloadContext ctx) throws IOException {
    WorkloadParams p = ctx.params();
    long n = p.keys();
    BulkInput.ensure(input, n);
    long inputBytes = Files.size(input);
    List<PhaseResult> results = new ArrayList<>();
    PhaseTimer timer = new PhaseTimer("bulk");
    try (Engine engine = ctx.opener().open()) {
      notes.accept("bulk path: " + engine.bulkPath() + " (N = " + threads + ")");
      long t0 = System.nanoTime();
      engine.bulkLoad(input, threads, p.batch());
      timer.record(System.nanoTime() - t0);
      PhaseResult bulk = timer.finishBulk(n, inputBytes);
      results.add(bulk);
      notes.accept(
          String.format(
              Locale.ROOT,
              "bulk: %.1f MB/s of input (%,d bytes, %,d documents)",
              bulk.inputMegabytesPerSecond(),
              inputBytes,
              n));
      if (!engine.keepsData()) {
        return results;
      }
      results.add(verify(engine, "verify", n, p));
      if (!engine.reopensAfterBulk()) {
        notes.accept(
            "verified before closing only: it does not reopen reliably after a bulk load"
                + " (documents missing or FileNotFoundException on reopen; docs/benchmarks.md, bulk)");
        return results;
      }
    }
    try (Engine engine = ctx.opener().open()) {
      results.add(verify(engine, "verify-reopened", n, p));
    }
    return results;
  }

  /** Reads back up to {@code reads} random documents (all of them when fewer) and one absent id. */
  private static PhaseResult verify(Engine engine, String phase, long n, WorkloadParams p)
      throws IOException {
    PhaseTimer timer = new PhaseTimer(phase);
    SplittableRandom random = new SplittableRandom(p.seed());
    long reads = Math.min(n, p.reads());
    long misses = 0;
    long wrong = 0;
    for (long r = 0; r < reads; r++) {
      long id = reads == n ? r : random.nextLong(n);
      byte[] key = BulkInput.key(id);
      long t0 = System.nanoTime();
      byte[] value = engine.get(key);
      timer.record(System.nanoTime() - t0);
      if (value == null) {
        misses++;
      } else if (!Arrays.equals(value, JobDocGenerator.document(id, 0))) {
        wrong++;
      }
    }
    if (engine.get(BulkInput.key(n + 1)) != null) {
      wrong++;
    }
    return timer.finish(reads, misses, wrong);
  }
}
