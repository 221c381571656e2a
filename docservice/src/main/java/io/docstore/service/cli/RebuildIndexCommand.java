package io.docstore.service.cli;

import io.docstore.service.DocStore;
import io.docstore.service.config.DocstoreConfig;
import io.docstore.service.store.SalvageRebuild;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code docstore rebuild-index}: the offline repair for a damaged index. Moves {@code index/} and
 * {@code index.checkpoint} into {@code index.damaged-<millis>/} and re-derives the index from the
 * queue, which is the system of record. Refuses while a server holds the directory.
 *
 * <p>Damaged queue data stops it (the old index is put back) unless {@code --skip-damaged}: then it
 * indexes around the damage ({@link SalvageRebuild}) and reports what it could not recover.
 * Skipping is asked for, never the default, because it gives documents up for good where a peer may
 * still hold a good copy of the segment ({@code docstore repair-segments} restores them all).
 */
@Command(
    name = "rebuild-index",
    mixinStandardHelpOptions = true,
    description = {
      "Move the index aside (kept in index.damaged-<millis>/) and rebuild it from the queue.",
      "",
      "Damaged queue data (a block that fails its checksum) stops the rebuild: the old index is"
          + " put back and the store is as it was. Repair the segment from a peer first (docstore"
          + " repair-segments --from ...); --skip-damaged is the last resort.",
      "",
      "With --skip-damaged, blocks that fail their checksums are skipped and everything else is"
          + " indexed. It prints each damaged stretch (file, offsets, sequences lost) and the IDs"
          + " it could not recover, from the old index: a document whose newest version was in a"
          + " damaged block reads as an error (500 corrupt), never as an older version; one"
          + " deleted there stays deleted; one the old index cannot vouch for (damaged, or not"
          + " indexed that far) reads as an error too, unless --accept-stale. The full report is"
          + " kept in index.damaged-<millis>/"
          + SalvageRebuild.REPORT_FILE
          + ". The store then starts, and after a later repair of the segment those documents"
          + " read back (run rebuild-index once more to clear the rest).",
      "",
      "Exit 0 when the whole queue was indexed, 1 when damage was skipped (the store starts; the"
          + " report says what was lost) or the rebuild stopped."
    })
final class RebuildIndexCommand implements Callable<Integer> {

  /** IDs printed per list; the report file holds them all. */
  private static final int PRINTED_IDS = 1000;

  @Mixin StoreLocation where = new StoreLocation();

  @Option(
      names = "--skip-damaged",
      description =
          "Skip queue blocks that fail their checksums instead of stopping; report what was lost.")
  boolean skipDamaged;

  @Option(
      names = "--accept-stale",
      description =
          "With --skip-damaged: serve the newest readable version of documents the old index"
              + " cannot vouch for (it MAY BE STALE) instead of answering an error for them.")
  boolean acceptStale;

  @Override
  public Integer call() throws Exception {
    if (acceptStale && !skipDamaged) {
      System.err.println("rebuild-index: --accept-stale goes with --skip-damaged");
      return 2;
    }
    DocstoreConfig cfg = where.config();
    long t0 = System.nanoTime();
    try (DocStore store =
        OfflineStore.withHint(
            () ->
                skipDamaged
                    ? DocStore.openRebuildingIndexSkippingDamage(
                        cfg.dataDir(), OfflineStore.storeOptions(cfg), acceptStale)
                    : DocStore.openRebuildingIndex(
                        cfg.dataDir(), OfflineStore.storeOptions(cfg)))) {
      SalvageRebuild.Report skipped = store.skippedDamage();
      if (skipped != null) {
        System.out.print("rebuild-index: " + skipped.format(PRINTED_IDS));
        System.out.printf(
            "rebuild-index: the full report is in %s%n",
            store.indexMovedAside().resolve(SalvageRebuild.REPORT_FILE));
      }
      System.out.printf(
          "rebuild-index: indexed %d queue records in %.1f s; the old index is in %s%n",
          skipped != null ? skipped.indexed() : store.appliedThrough(),
          (System.nanoTime() - t0) / 1e9,
          store.indexMovedAside());
      // The index is whole again and the store starts, but documents were given up: say so in the
      // exit code as well, as verify does for what it finds.
      return skipped != null ? 1 : 0;
    }
  }
}
