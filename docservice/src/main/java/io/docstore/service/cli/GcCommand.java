package io.docstore.service.cli;

import io.docstore.service.DocStore;
import io.docstore.service.config.DocstoreConfig;
import io.docstore.service.gc.SpaceReclaimer;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code docstore gc}: the space reclamation, offline: passes until the space amplification is at
 * or below the target or nothing more can be reclaimed (docs/design/space-reclamation.md).
 */
@Command(
    name = "gc",
    mixinStandardHelpOptions = true,
    description = {
      "Reclaim the queue's garbage (overwritten, deleted and expired versions) with the server"
          + " stopped: relocate the live records of the segments with the most garbage and"
          + " replace those segments by hollow files.",
      "",
      "Stops at the target space amplification (queue bytes over live bytes; default: the"
          + " configuration's docstore.gc.target), when no sealed segment has docstore.gc.min-garbage"
          + " of garbage, or when free space is below docstore.gc.reserve; below the target it"
          + " still copies the records of LZ4 blocks a shard appended while catching up into"
          + " blocks of the queue's dictionary. Replicas copy the hollow segments on their next"
          + " pull. Exit 0."
    })
final class GcCommand implements Callable<Integer> {

  @Mixin StoreLocation where = new StoreLocation();

  @Option(
      names = "--target",
      paramLabel = "X",
      description = "Space amplification to stop at (at least 1.0).")
  Double target;

  @Override
  public Integer call() throws Exception {
    DocstoreConfig cfg = where.config();
    double t = target != null ? target : cfg.gc().target();
    if (!(t >= 1)) {
      System.err.println("gc: --target must be at least 1.0, got " + t);
      return 2;
    }
    long t0 = System.nanoTime();
    try (DocStore store = OfflineStore.open(cfg)) {
      store.checkpoint();
      store.reclamation().readSegmentHeaders(); // every LZ4 block of a catch-up, recompressed
      double before = amplification(store);
      SpaceReclaimer.Pass p = store.reclamation().run(t, Long.MAX_VALUE);
      double after = amplification(store);
      System.out.printf(
          "gc: reclaimed %d segments (%d bytes), relocated %d records (%d bytes) in %.1f s;"
              + " space amplification %.2f -> %.2f; stopped: %s%n",
          p.segments(),
          p.bytesReclaimed(),
          p.recordsRelocated(),
          p.bytesRelocated(),
          (System.nanoTime() - t0) / 1e9,
          before,
          after,
          p.stop());
      return 0;
    }
  }

  private static double amplification(DocStore store) {
    return ((Number) store.reclamation().stats().get("spaceAmplification")).doubleValue();
  }
}
