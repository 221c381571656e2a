package io.docstore.bench.service;

import io.docstore.bench.data.JobDocGenerator;
import io.docstore.io.SyncPolicy;
import io.docstore.queue.QueueOptions;
import io.docstore.service.DocStore;
import io.docstore.service.DocStoreOptions;
import io.docstore.service.Update;
import io.docstore.service.cache.OffHeapDocCache;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * {@code StoreIngest UPDATES IDS}: the store's write path without the network or an fsync (queue
 * sync {@code none}): writes each of {@code IDS} job documents once, then {@code UPDATES} random
 * overwrites among them in batches of 100 through {@code DocStore.apply}, and prints the rate of
 * the overwrites. The indexer's share (the index and, since space reclamation, one lookup per
 * record for the live-record counts) is what it shows; run two builds one after the other,
 * alternating, to compare them (docs/benchmarks.md, "Store ingest").
 */
public final class StoreIngest {

  private StoreIngest() {}

  public static void main(String[] args) throws Exception {
    int updates = Integer.parseInt(args[0]);
    int ids = Integer.parseInt(args[1]);
    byte[][] bodies = new byte[256][];
    for (int i = 0; i < bodies.length; i++) {
      bodies[i] = JobDocGenerator.document(i, 1);
    }
    Path dir = Files.createTempDirectory("store-ingest");
    try {
      DocStoreOptions options =
          DocStoreOptions.builder(new OffHeapDocCache(64L << 20))
              .queueOptions(QueueOptions.builder().syncPolicy(SyncPolicy.NONE).build())
              .build();
      try (DocStore store = DocStore.open(dir, options)) {
        List<Update> batch = new ArrayList<>(100);
        for (int id = 0; id < ids; id++) {
          add(store, batch, Update.put(id, bodies[id & 255]));
        }
        SplittableRandom rnd = new SplittableRandom(1);
        long t0 = System.nanoTime();
        for (int i = 0; i < updates; i++) {
          add(store, batch, Update.put(rnd.nextInt(ids), bodies[i & 255]));
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        System.out.printf(
            "result updates=%d ids=%d seconds=%.2f updates_per_s=%.0f%n",
            updates, ids, seconds, updates / seconds);
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
