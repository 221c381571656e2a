package io.docstore.service.cli;

import io.docstore.service.DocStore;
import io.docstore.service.bulk.BulkLoad;
import io.docstore.service.config.DocstoreConfig;
import io.docstore.service.updater.NdjsonApplier;
import io.docstore.service.updater.UpdateParser;
import java.io.BufferedInputStream;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code docstore import FILE.ndjson}: applies an NDJSON update file (the {@code _bulk} line
 * format) to a data directory offline, in batches with one durability wait each; a progress line on
 * a terminal, a summary line at the end. Exit 1 when some lines were invalid (they are listed).
 * With {@code --bulk} the file goes through {@link BulkLoad} instead (parallel, one fsync).
 */
@Command(
    name = "import",
    mixinStandardHelpOptions = true,
    description =
        "Apply an NDJSON update file ({\"id\":N,\"doc\":{...}} or {\"id\":N,\"op\":\"delete\"} per line) offline.")
final class ImportCommand implements Callable<Integer> {

  private static final int SHOWN_ERRORS = 20;

  @Parameters(paramLabel = "FILE", description = "NDJSON file.")
  Path file;

  @Mixin StoreLocation where = new StoreLocation();

  @Option(
      names = "--batch",
      paramLabel = "N",
      description = "Lines per batch (default: bulk.max-lines).")
  Integer batch;

  @Option(
      names = "--bulk",
      description =
          "Bulk load (parallel parsing and block compression, one queue fsync at the"
              + " end, the index written as one file off its write path); offline only. See docs/service.md.")
  boolean bulk;

  @Option(
      names = "--threads",
      paramLabel = "N",
      description = "With --bulk: threads parsing and compressing (default: cores).")
  Integer threads;

  @Override
  public Integer call() throws Exception {
    if (!Files.isRegularFile(file)) {
      System.err.println("import: not a file: " + file);
      return 2;
    }
    DocstoreConfig cfg = where.config();
    String kafkaShard = kafkaShard(cfg);
    if (kafkaShard != null) {
      System.err.println("import: " + kafkaShard);
      return 2;
    }
    if (bulk) {
      return bulk(cfg);
    }
    if (threads != null) {
      System.err.println("import: --threads needs --bulk");
      return 2;
    }
    long total = Files.size(file);
    long t0 = System.nanoTime();
    ProgressBar progress = new ProgressBar(total, t0, "MB", 1e6);
    NdjsonApplier.Result r;
    try (DocStore store = OfflineStore.open(cfg);
        InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 20)) {
      NdjsonApplier applier =
          new NdjsonApplier(
              store,
              new UpdateParser(cfg.maxBodyBytes()),
              batch != null ? batch : cfg.bulkMaxLines(),
              cfg.maxBodyBytes());
      r = applier.apply(in, progress);
    }
    progress.clear();
    showErrors(r.errors(), r.failed());
    double secs = Math.max(1e-3, (System.nanoTime() - t0) / 1e9);
    System.out.printf(
        Locale.ROOT,
        "imported %d updates from %s in %.1f s (%.0f updates/s, %.1f MB/s); %d invalid lines; last sequence %d%n",
        r.applied(),
        file,
        secs,
        r.applied() / secs,
        total / secs / 1e6,
        r.failed(),
        r.lastSequence());
    return r.failed() == 0 ? 0 : 1;
  }

  /**
   * Why this data directory must not be imported into (its updates come from a Kafka topic: a
   * document imported here would be in no partition of it), or null. docs/kafka.md.
   */
  private static String kafkaShard(DocstoreConfig cfg) throws Exception {
    if (cfg.kafka() != null) {
      return "this configuration takes its updates from Kafka topic "
          + cfg.kafka().topic()
          + " (docstore.updates.kafka): produce the file with `docstore produce` instead";
    }
    try (DocStore store = OfflineStore.openExisting(cfg)) {
      return store.holdsLogPositions()
          ? cfg.dataDir()
              + " is a shard fed by Kafka (its queue records positions in the update topic):"
              + " produce the file to the topic with `docstore produce` instead"
          : null;
    } catch (java.io.FileNotFoundException e) {
      return null; // no queue segments yet: nothing to contradict
    }
  }

  private int bulk(DocstoreConfig cfg) throws Exception {
    int n = threads != null ? threads : Runtime.getRuntime().availableProcessors();
    if (n < 1) {
      System.err.println("import: --threads must be at least 1");
      return 2;
    }
    long total = Files.size(file);
    long t0 = System.nanoTime();
    ProgressBar progress = new ProgressBar(total, t0, "MB", 1e6);
    BulkLoad.Result r;
    try (InputStream in = Files.newInputStream(file)) {
      r =
          OfflineStore.withHint(
              () -> BulkLoad.load(cfg.dataDir(), OfflineStore.storeOptions(cfg), in, n, progress));
    }
    progress.clear();
    showErrors(r.errors(), r.failed());
    double secs = Math.max(1e-3, (System.nanoTime() - t0) / 1e9);
    System.out.printf(
        Locale.ROOT,
        "bulk-loaded %d updates from %s in %.1f s (%.0f updates/s, %.1f MB/s, %d threads);"
            + " %d invalid lines; last sequence %d%n",
        r.loaded(),
        file,
        secs,
        r.loaded() / secs,
        total / secs / 1e6,
        n,
        r.failed(),
        r.lastSequence());
    return r.failed() == 0 ? 0 : 1;
  }

  private static void showErrors(java.util.List<String> errors, long failed) {
    for (int i = 0; i < Math.min(SHOWN_ERRORS, errors.size()); i++) {
      System.err.println("import: " + errors.get(i));
    }
    if (failed > SHOWN_ERRORS) {
      System.err.println("import: ... and " + (failed - SHOWN_ERRORS) + " more invalid lines");
    }
  }
}
