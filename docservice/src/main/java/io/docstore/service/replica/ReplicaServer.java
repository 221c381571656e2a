package io.docstore.service.replica;

import io.docstore.queue.QueueOptions;
import io.docstore.queue.format.BlockFormat;
import io.docstore.service.Service;
import io.docstore.service.config.DocstoreConfig;
import io.docstore.service.http.HealthRoutes;
import io.docstore.service.http.HttpServer;
import io.docstore.service.http.ReadRoutes;
import io.docstore.service.metrics.Metrics;
import io.docstore.service.rpc.RpcServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;

/**
 * The composition root of a running replica: metrics, the {@link ReplicaNode} (pulling and
 * ingesting), the read port and RPC port over it (the same read API as the primary), and an admin
 * port without write paths. Starts in that order, stops in reverse. Thread-safe close.
 */
public final class ReplicaServer implements Closeable {

  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(ReplicaServer.class);

  private final PrometheusMeterRegistry registry;
  private final ReplicaNode node;
  private final HttpServer read;
  private final RpcServer rpc;
  private final HttpServer admin;
  private final io.docstore.service.cluster.ClusterView cluster;
  private boolean closed;

  /** Set by {@link #close}: {@code /readyz} says "draining" for {@code drain-period}. */
  private volatile boolean draining;

  private final Duration drainPeriod;

  private ReplicaServer(DocstoreConfig cfg, ReplicaConfig rc)
      throws IOException, InterruptedException {
    registry = Metrics.newRegistry();
    ReplicaOptions o =
        ReplicaOptions.builder(rc.source(), cfg.dataDir())
            .pullInterval(rc.pullInterval())
            .rsyncTimeout(rc.rsyncTimeout())
            .checkpointInterval(rc.checkpointInterval())
            .maxStaleness(rc.maxStaleness())
            .expectedBlockBytes(
                BlockFormat.HEADER_LENGTH
                    + Math.max(cfg.queueBlockSize(), QueueOptions.MIN_BLOCK_SIZE))
            .rsyncBinary(rc.rsync())
            .indexOptions(Service.indexOptions(cfg).build())
            .cacheBytes(cfg.cacheBytes())
            .groups(cfg.groups())
            .build();
    if (!cfg.memcachedServers().isEmpty()) {
      LOG.warn(
          "docstore.cache.memcached.servers is ignored on a replica: it caches in process ({} bytes), because a"
              + " lagging replica's updates would write older versions into a memcached the primary shares",
          cfg.cacheBytes());
    }
    try {
      node = ReplicaNode.start(o, registry);
    } catch (IOException | RuntimeException e) {
      Metrics.close(registry);
      throw e;
    }
    HttpServer r = null;
    RpcServer p = null;
    io.docstore.service.cluster.ClusterView view = io.docstore.service.cluster.ClusterView.of(cfg);
    String opening = "docstore.http.read.port"; // the key of the port being opened, for errors
    try {
      r =
          new HttpServer(
                  "read",
                  cfg.readAddress(),
                  limits(cfg),
                  new ReadRoutes(
                      node,
                      cfg.maxIdsPerRequest(),
                      cfg.maxResponseBytes(),
                      "this is a read replica: updates go to the primary's admin port",
                      view),
                  registry)
              .start();
      if (cfg.rpcEnabled()) {
        opening = "docstore.rpc.port";
        p =
            new RpcServer(
                node,
                RpcServer.Options.builder()
                    .host(cfg.rpcAddress().getAddress().getHostAddress())
                    .port(cfg.rpcAddress().getPort())
                    .maxFrameBytes(cfg.rpcMaxFrameBytes())
                    .maxIdsPerRequest(cfg.rpcMaxBatch())
                    .maxConnections(cfg.maxConnections())
                    .idleTimeout(cfg.idleTimeout())
                    .frameTimeout(cfg.requestTimeout())
                    .build(),
                registry,
                view);
        p.start();
      }
      opening = "docstore.http.admin.port";
      admin =
          new HttpServer(
                  "admin",
                  cfg.adminAddress(),
                  limits(cfg),
                  new ReplicaAdminRoutes(
                      node,
                      node::stats,
                      () -> draining ? "draining" : node.notReady(),
                      registry,
                      cfg.adminToken(),
                      view),
                  registry)
              .start();
    } catch (IOException | InterruptedException | RuntimeException e) {
      if (p != null) {
        p.close();
      }
      if (r != null) {
        r.close(Duration.ZERO);
      }
      if (view != null) {
        view.close();
      }
      node.close();
      Metrics.close(registry);
      if (e instanceof io.docstore.service.http.PortInUseException) {
        throw new io.docstore.service.config.ConfigError(opening, e.getMessage());
      }
      throw e;
    }
    read = r;
    cluster = view;
    drainPeriod = cfg.drainPeriod();
    rpc = p;
  }

  public static ReplicaServer start(DocstoreConfig cfg, ReplicaConfig rc)
      throws IOException, InterruptedException {
    return new ReplicaServer(cfg, rc);
  }

  private static HttpServer.Limits limits(DocstoreConfig c) {
    return new HttpServer.Limits(
        c.maxRequestLine(),
        c.maxHeaderSize(),
        8 * 1024,
        c.idleTimeout(),
        c.requestTimeout(),
        c.maxConnections(),
        c.workerThreads(),
        c.workerQueue());
  }

  public ReplicaNode node() {
    return node;
  }

  public int readPort() {
    return read.port();
  }

  public int adminPort() {
    return admin.port();
  }

  /** The RPC port, or -1 when RPC is off. */
  public int rpcPort() {
    return rpc == null ? -1 : rpc.port();
  }

  @Override
  public synchronized void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    draining = true;
    HealthRoutes.drain(drainPeriod); // as on the primary
    admin.close(Duration.ofSeconds(1));
    if (rpc != null) {
      rpc.close();
    }
    read.close(Duration.ofSeconds(5));
    if (cluster != null) {
      cluster.close();
    }
    try {
      node.close();
    } finally {
      Metrics.close(registry);
    }
  }
}
