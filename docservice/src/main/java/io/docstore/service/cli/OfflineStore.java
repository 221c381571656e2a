package io.docstore.service.cli;

import io.docstore.queue.format.SegmentFileName;
import io.docstore.service.DocStore;
import io.docstore.service.DocStoreOptions;
import io.docstore.service.Service;
import io.docstore.service.cache.OffHeapDocCache;
import io.docstore.service.config.DocstoreConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/** Opens a data directory directly for the offline commands (get, stats, import). */
final class OfflineStore {

  /** Offline commands need no large cache: every read is one-off. */
  private static final long CACHE_BYTES = 8 << 20;

  private OfflineStore() {}

  static DocstoreConfig config(Path configFile, Path data) {
    return DocstoreConfig.load(
        configFile, data == null ? Map.of() : Map.of("docstore.data-dir", data.toString()));
  }

  /** Opens the store; fails with a hint when a server holds the directory. */
  static DocStore open(DocstoreConfig cfg) throws IOException {
    return withHint(() -> DocStore.open(cfg.dataDir(), storeOptions(cfg)));
  }

  /**
   * For a command that only reads (get, stats): opens the store read-only ({@link
   * DocStore#openReadOnly}: nothing in the directory changes), and refuses a directory that holds
   * no docstore data rather than creating a store there.
   */
  static DocStore openExisting(DocstoreConfig cfg) throws IOException {
    Path queue = cfg.dataDir().resolve("queue");
    boolean holdsData;
    try (var files = java.nio.file.Files.list(queue)) {
      holdsData = files.anyMatch(p -> SegmentFileName.parse(p).isPresent());
    } catch (java.nio.file.NoSuchFileException | java.nio.file.NotDirectoryException e) {
      holdsData = false;
    }
    if (!holdsData) {
      throw new java.io.FileNotFoundException(
          "no docstore data under " + cfg.dataDir() + " (no queue segments in " + queue + ")");
    }
    return withHint(() -> DocStore.openReadOnly(cfg.dataDir(), storeOptions(cfg)));
  }

  /** The store's options for an offline command. */
  static DocStoreOptions storeOptions(DocstoreConfig cfg) {
    // A tool never reclaims space in the background: `docstore gc` runs its passes itself.
    return Service.storeOptions(
        cfg,
        new OffHeapDocCache(CACHE_BYTES),
        new SimpleMeterRegistry(),
        cfg.gc().withEnabled(false));
  }

  /** Something that opens the data directory. */
  @FunctionalInterface
  interface Opening<T> {
    T run() throws IOException;
  }

  /** Runs {@code opening}; when a server holds the directory, the failure says so. */
  static <T> T withHint(Opening<T> opening) throws IOException {
    try {
      return opening.run();
    } catch (IOException e) {
      if (e.getMessage() != null && e.getMessage().contains("in use")) {
        throw new IOException(
            e.getMessage() + "; a server is running on it: use --server host:port", e);
      }
      throw e;
    }
  }
}
