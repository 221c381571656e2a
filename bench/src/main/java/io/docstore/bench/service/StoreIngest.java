package io.docstore.bench.service;

import io.docstore.bench.data.JobDocGenerator;
import io.docstore.io.SyncPolicy;
import io.docstore.queue.QueueOptions;
import io.docstore.service.DocStore;
import io.docstore.service.DocStoreOptions;
import io.docstore.service.Update;
import io.docstore.service.cache.OffHeapDocCache;
import io.docstore.service.gc.GcOptions;
import io.docstore.service.groups.FieldGroups;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * {@code StoreIngest UPDATES IDS [gc|nogc SEGMENT_MB [summary]]}: the store's write path without
 * the network or an fsync (queue sync {@code none}): writes each of {@code IDS} job documents once,
 * then {@code UPDATES} random overwrites among them in batches of 100 through {@code
 * DocStore.apply}, and prints the rate of the overwrites (over the run and over its last third,
 * past the JIT's warm-up of the paths the run starts using), what the queue holds at the end, and
 * the latency of one reader reading random documents meanwhile. The indexer's share (the index and,
 * since space reclamation, one lookup per record for the live-record counts) is what it shows; run
 * two builds one after the other, alternating, to compare them (docs/benchmarks.md, "Store
 * ingest"). With {@code gc}, the space reclamation runs in the background meanwhile (its defaults,
 * but a pass every second) on segments of {@code SEGMENT_MB}; run it alternating with {@code nogc
 * SEGMENT_MB} for its cost (docs/benchmarks.md, "Space reclamation"). A fifth argument {@code
 * summary} configures one field group (title, company, location, salary, posted_at), so that every
 * write also projects and stores it; alternate with and without for the cost of a group
 * (docs/benchmarks.md, "Field groups").
 */
public final class StoreIngest {

  private StoreIngest() {}

  public static void main(String[] args) throws Exception {
    int updates = Integer.parseInt(args[0]);
    int ids = Integer.parseInt(args[1]);
    boolean gc = args.length > 2 && args[2].equals("gc");
    int segmentMb = args.length > 3 ? Integer.parseInt(args[3]) : 256;
    boolean summary = args.length > 4 && args[4].equals("summary");
    GcOptions d = GcOptions.defaults();
    GcOptions gcOptions =
        gc
            ? new GcOptions(
                true,
                d.target(),
                d.bytesPerSecond(),
                Duration.ofSeconds(1),
                0,
                d.minGarbage(),
                d.batch())
            : d.withEnabled(false);
    byte[][] bodies = new byte[256][];
    for (int i = 0; i < bodies.length; i++) {
      bodies[i] = JobDocGenerator.document(i, 1);
    }
    Path dir = Files.createTempDirectory("store-ingest");
    try {
      DocStoreOptions options =
          DocStoreOptions.builder(new OffHeapDocCache(64L << 20))
              .queueOptions(
                  QueueOptions.builder()
                      .syncPolicy(SyncPolicy.NONE)
                      .segmentSize(segmentMb << 20)
                      .build())
              .gc(gcOptions)
              .groups(
                  summary
                      ? new FieldGroups(
                          java.util.Map.of(
                              "summary",
                              java.util.List.of(
                                  "title", "company", "location", "salary", "posted_at")))
                      : FieldGroups.NONE)
              .build();
      try (DocStore store = DocStore.open(dir, options)) {
        List<Update> batch = new ArrayList<>(100);
        for (int id = 0; id < ids; id++) {
          add(store, batch, Update.put(id, bodies[id & 255]));
        }
        SplittableRandom rnd = new SplittableRandom(1);
        // One reader meanwhile, reading random documents as fast as it can: its latency is what
        // the writes, and the space reclamation if on, do to reads.
        org.HdrHistogram.Histogram reads = new org.HdrHistogram.Histogram(3);
        java.util.concurrent.atomic.AtomicBoolean done =
            new java.util.concurrent.atomic.AtomicBoolean();
        Thread reader =
            new Thread(
                () -> {
                  SplittableRandom r = new SplittableRandom(2);
                  try {
                    while (!done.get()) {
                      long s0 = System.nanoTime();
                      store.get(r.nextInt(ids));
                      reads.recordValue(System.nanoTime() - s0);
                    }
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                },
                "reader");
        reader.start();
        long t0 = System.nanoTime();
        int tailFrom = updates - updates / 3;
        long tail0 = t0;
        for (int i = 0; i < updates; i++) {
          if (i == tailFrom) {
            tail0 = System.nanoTime();
          }
          add(store, batch, Update.put(rnd.nextInt(ids), bodies[i & 255]));
        }
        long t1 = System.nanoTime();
        double seconds = (t1 - t0) / 1e9;
        double tailSeconds = (t1 - tail0) / 1e9;
        done.set(true);
        reader.join();
        java.util.Map<String, Object> stats = store.stats();
        java.util.Map<?, ?> g = (java.util.Map<?, ?>) stats.get("gc");
        System.out.printf(
            "result updates=%d ids=%d gc=%s groups=%s seconds=%.2f updates_per_s=%.0f"
                + " last_third_updates_per_s=%.0f queue_bytes=%s"
                + " space_amplification=%.2f gc_reclaimed=%s gc_relocated=%s reads=%d"
                + " read_p50_us=%.1f read_p99_us=%.1f read_p999_us=%.1f%n",
            updates,
            ids,
            gc,
            summary ? "summary" : "none",
            seconds,
            updates / seconds,
            (updates - tailFrom) / tailSeconds,
            stats.get("segmentBytes"),
            ((Number) g.get("spaceAmplification")).doubleValue(),
            g.get("bytesReclaimed"),
            g.get("bytesRelocated"),
            reads.getTotalCount(),
            reads.getValueAtPercentile(50) / 1e3,
            reads.getValueAtPercentile(99) / 1e3,
            reads.getValueAtPercentile(99.9) / 1e3);
      }
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private static void add(DocStore store, List<Update> batch, Update u) throws Exception {
    batch.add(u);
    if (batch.size() == 100) {
      store.apply(batch);
      batch.clear();
    }
  }
}
