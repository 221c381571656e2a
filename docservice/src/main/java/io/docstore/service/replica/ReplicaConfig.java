package io.docstore.service.replica;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import io.docstore.service.config.ConfigError;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The {@code docstore.replica} section of the configuration (documented in config/docstore.conf):
 * where to pull from, how often, and how stale it may be and still be ready. Everything else
 * (ports, limits, data directory) comes from {@link io.docstore.service.config.DocstoreConfig},
 * which validates the same file.
 *
 * @param source rsync source: {@code rsync://host:port/module/}, {@code host:path/} or a local path
 */
public record ReplicaConfig(
    String source,
    Duration pullInterval,
    Duration rsyncTimeout,
    Duration checkpointInterval,
    Duration maxStaleness,
    String rsync) {

  /** Reads and checks the section; a bad value fails with the key and the reason. */
  public static ReplicaConfig load(Path file) {
    Config defaults =
        ConfigFactory.parseResources(ReplicaConfig.class.getClassLoader(), "docstore.conf");
    Config c =
        ConfigFactory.systemProperties()
            .withFallback(
                file == null ? ConfigFactory.empty() : ConfigFactory.parseFile(file.toFile()))
            .withFallback(defaults)
            .resolve();
    String key = "docstore.replica.";
    try {
      String source = c.getString(key + "source").trim();
      if (source.isEmpty()) {
        throw new ConfigError(
            key + "source",
            "is required for a replica: rsync://host:port/module/ (see scripts/rsync-primary)");
      }
      Duration pull = positive(c, key + "pull-interval");
      Duration timeout = positive(c, key + "rsync-timeout");
      if (timeout.toSeconds() < 1) {
        throw new ConfigError(
            key + "rsync-timeout", "must be at least 1s (rsync counts whole seconds)");
      }
      return new ReplicaConfig(
          source,
          pull,
          timeout,
          positive(c, key + "checkpoint-interval"),
          positive(c, key + "max-staleness"),
          c.getString(key + "rsync"));
    } catch (ConfigException e) {
      throw new ConfigError(key, e.getMessage());
    }
  }

  private static Duration positive(Config c, String key) {
    Duration d = c.getDuration(key);
    if (d.isZero() || d.isNegative()) {
      throw new ConfigError(key, "must be positive, got " + d);
    }
    return d;
  }
}
