package io.docstore.service.replica;

import io.docstore.service.config.ConfigError;
import io.docstore.service.config.DocstoreConfig;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code docstore replica --config F}: runs a read replica until SIGTERM/SIGINT: pulls the
 * primary's queue with rsync, indexes it, serves the read API. See docs/replication.md.
 */
@Command(
    name = "replica",
    mixinStandardHelpOptions = true,
    description = "Run a read replica: copy a primary's queue with rsync, index it, serve reads.")
public final class ReplicaCommand implements Callable<Integer> {

  private static final Logger log = LoggerFactory.getLogger(ReplicaCommand.class);

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description = "Configuration file (HOCON); see config/docstore.conf.")
  Path config;

  @Option(
      names = "--data",
      paramLabel = "DIR",
      description = "Replica directory (overrides docstore.data-dir).")
  Path data;

  @Option(
      names = "--source",
      paramLabel = "URL",
      description = "rsync source (overrides docstore.replica.source).")
  String source;

  @Override
  public Integer call() throws Exception {
    DocstoreConfig cfg;
    ReplicaConfig rc;
    try {
      Map<String, Object> overrides = new HashMap<>();
      if (data != null) {
        overrides.put("docstore.data-dir", data.toString());
      }
      if (source != null) {
        System.setProperty("docstore.replica.source", source);
      }
      cfg = DocstoreConfig.load(config, overrides);
      log.info(cfg.memorySummary(true));
      cfg.requireCachesFit(io.docstore.io.MemoryLimit.detect().maxDirectBytes(), true);
      rc = ReplicaConfig.load(config);
    } catch (ConfigError e) {
      System.err.println("docstore: " + e.getMessage());
      return 2;
    }
    ReplicaServer server = ReplicaServer.start(cfg, rc);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    server.close();
                  } catch (Exception e) {
                    log.error("shutdown failed: {}", e.toString());
                  } finally {
                    stopped.countDown();
                  }
                },
                "docstore-replica-shutdown"));
    StringBuilder b = new StringBuilder();
    b.append("docstore replica of ")
        .append(rc.source())
        .append(" in ")
        .append(cfg.dataDir().toAbsolutePath())
        .append('\n');
    b.append("  read   http://")
        .append(cfg.readAddress().getHostString())
        .append(':')
        .append(server.readPort())
        .append("/docs/{id}\n");
    b.append("  admin  http://")
        .append(cfg.adminAddress().getHostString())
        .append(':')
        .append(server.adminPort())
        .append("/stats, /metrics (writes: 403)");
    if (server.rpcPort() > 0) {
      b.append("\n  rpc    ")
          .append(cfg.rpcAddress().getAddress().getHostAddress())
          .append(':')
          .append(server.rpcPort());
    }
    System.out.println(b);
    System.out.flush();
    stopped.await();
    return 0;
  }
}
