package io.docstore.service.cli;

import io.docstore.service.DocStore;
import io.docstore.service.config.DocstoreConfig;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code docstore rebuild-index}: the offline repair for a damaged index. Moves {@code index/} and
 * {@code index.checkpoint} into {@code index.damaged-<millis>/} and re-derives the index from the
 * queue, which is the system of record. Refuses while a server holds the directory.
 */
@Command(
    name = "rebuild-index",
    mixinStandardHelpOptions = true,
    description =
        "Move the index aside (kept in index.damaged-<millis>/) and rebuild it from the queue.")
final class RebuildIndexCommand implements Callable<Integer> {

  @Option(
      names = "--data",
      paramLabel = "DIR",
      description = "Data directory (default: the configuration's).")
  Path data;

  @Option(names = "--config", paramLabel = "FILE", description = "Configuration file.")
  Path config;

  @Override
  public Integer call() throws Exception {
    DocstoreConfig cfg = OfflineStore.config(config, data);
    long t0 = System.nanoTime();
    try (DocStore store =
        OfflineStore.withHint(
            () -> DocStore.openRebuildingIndex(cfg.dataDir(), OfflineStore.storeOptions(cfg)))) {
      System.out.printf(
          "rebuild-index: indexed %d queue records in %.1f s; the old index is in %s%n",
          store.appliedThrough(), (System.nanoTime() - t0) / 1e9, store.indexMovedAside());
    }
    return 0;
  }
}
