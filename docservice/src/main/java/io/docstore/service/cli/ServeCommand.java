package io.docstore.service.cli;

import io.docstore.service.Service;
import io.docstore.service.config.ConfigError;
import io.docstore.service.config.DocstoreConfig;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code docstore serve}: runs the primary until SIGTERM/SIGINT, then shuts down gracefully within
 * the configured timeout (stop accepting, drain, sync, close). Prints the URLs to try on stdout;
 * logs go to stderr.
 */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description = "Run the primary: updater (admin HTTP, inbox), read API (HTTP, RPC), metrics.")
final class ServeCommand implements Callable<Integer> {

  private static final Logger log = LoggerFactory.getLogger(ServeCommand.class);

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description = "Configuration file (HOCON); defaults: config/docstore.conf.")
  Path config;

  @Option(
      names = "--data",
      paramLabel = "DIR",
      description = "Data directory (overrides docstore.data-dir).")
  Path data;

  @Override
  public Integer call() throws Exception {
    DocstoreConfig cfg;
    try {
      cfg =
          DocstoreConfig.load(
              config, data == null ? Map.of() : Map.of("docstore.data-dir", data.toString()));
      log.info(cfg.memorySummary(false));
      cfg.requireCachesFit(io.docstore.io.MemoryLimit.detect().maxDirectBytes(), false);
    } catch (ConfigError e) {
      System.err.println("docstore: " + e.getMessage());
      return 2;
    }
    if ("root".equals(System.getProperty("user.name"))) {
      log.warn(
          "running as root: a flaw in the service or a hostile request could then change any file on this machine; "
              + "run docstore as an unprivileged user that owns only the data directory");
    }
    if (cfg.sync().mode() == io.docstore.io.SyncPolicy.Mode.NONE) {
      log.warn(
          "sync = none: acknowledged writes survive a process crash but NOT a power failure or kernel crash");
    }
    Service service;
    try {
      service = Service.start(cfg);
    } catch (ConfigError e) {
      System.err.println("docstore: " + e.getMessage());
      return 2;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  log.info("shutting down (timeout {})", cfg.shutdownTimeout());
                  try {
                    service.close();
                  } catch (Exception e) {
                    log.error("shutdown failed: {}", e.toString());
                  } finally {
                    stopped.countDown();
                  }
                },
                "docstore-shutdown"));
    printUrls(service, cfg);
    stopped.await();
    return 0;
  }

  private static void printUrls(Service s, DocstoreConfig cfg) {
    StringBuilder b = new StringBuilder();
    b.append("docstore serving ")
        .append(cfg.dataDir().toAbsolutePath())
        .append(" (sync=")
        .append(cfg.sync())
        .append(")\n");
    b.append("  read   ").append(s.readUrl()).append("/docs/{id}   and   /docs?ids=1,2,3\n");
    b.append("  admin  ")
        .append(s.adminUrl())
        .append("/docs/{id} (PUT, DELETE), /docs/_bulk, /metrics, /stats, /readyz\n");
    if (s.rpcPort() > 0) {
      b.append("  rpc    ")
          .append(cfg.rpcAddress().getAddress().getHostAddress())
          .append(':')
          .append(s.rpcPort())
          .append('\n');
    }
    io.docstore.service.kafka.KafkaOptions k = cfg.kafka();
    if (k != null) {
      b.append("  kafka  updates from topic ")
          .append(k.topic())
          .append(", partitions ")
          .append(k.partitions())
          .append(", on ")
          .append(k.bootstrapServers())
          .append(" (PUT, DELETE and _bulk on the admin port answer 409)\n");
    }
    b.append("try:\n");
    if (k == null) {
      b.append("  curl -X PUT --data '{\"title\":\"hello\"}' ")
          .append(s.adminUrl())
          .append("/docs/1\n");
    } else {
      b.append("  echo '{\"id\":1,\"doc\":{\"title\":\"hello\"}}' > one.ndjson && docstore produce")
          .append(" one.ndjson --kafka ")
          .append(k.bootstrapServers())
          .append(" --topic ")
          .append(k.topic())
          .append('\n');
    }
    b.append("  curl -i ").append(s.readUrl()).append("/docs/1\n");
    b.append("stop with Ctrl-C (or SIGTERM)");
    System.out.println(b);
    System.out.flush();
  }
}
