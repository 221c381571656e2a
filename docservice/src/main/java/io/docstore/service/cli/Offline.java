package io.docstore.service.cli;

import io.docstore.service.DocStore;
import io.docstore.service.Service;
import io.docstore.service.cache.InProcessDocCache;
import io.docstore.service.config.DocstoreConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/** Opens a data directory directly for the offline commands (get, stats, import). */
final class Offline {

  /** Offline commands need no large cache: every read is one-off. */
  private static final long CACHE_BYTES = 8 << 20;

  private Offline() {}

  static DocstoreConfig config(Path configFile, Path data) {
    return DocstoreConfig.load(configFile, data == null ? Map.of() : Map.of("docstore.data-dir", data.toString()));
  }

  /** Opens the store; fails with a hint when a server holds the directory. */
  static DocStore open(DocstoreConfig cfg) throws IOException {
    try {
      return DocStore.open(cfg.dataDir(), Service.storeOptions(cfg, new InProcessDocCache(CACHE_BYTES), new SimpleMeterRegistry()));
    } catch (IOException e) {
      if (e.getMessage() != null && e.getMessage().contains("in use")) {
        throw new IOException(e.getMessage() + "; a server is running on it: use --server host:port", e);
      }
      throw e;
    }
  }
}
