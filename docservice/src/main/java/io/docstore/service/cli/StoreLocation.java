package io.docstore.service.cli;

import io.docstore.service.config.DocstoreConfig;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * Where an offline command finds the store: {@code --data} and {@code --config}, shared by the
 * commands that open a stopped store (a picocli mixin).
 */
final class StoreLocation {

  @Option(
      names = "--data",
      paramLabel = "DIR",
      description = "Data directory (default: the configuration's docstore.data-dir).")
  Path data;

  @Option(names = "--config", paramLabel = "FILE", description = "Configuration file.")
  Path config;

  /** The configuration, with the data directory {@code --data} names if given. */
  DocstoreConfig config() {
    return OfflineStore.config(config, data);
  }
}
