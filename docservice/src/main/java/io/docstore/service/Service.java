package io.docstore.service;

import io.docstore.index.IndexOptions;
import io.docstore.io.FileSystem;
import io.docstore.io.SyncPolicy;
import io.docstore.queue.QueueOptions;
import io.docstore.service.cache.DocCache;
import io.docstore.service.cache.MemcachedDocCache;
import io.docstore.service.cache.OffHeapDocCache;
import io.docstore.service.config.DocstoreConfig;
import io.docstore.service.http.AdminRoutes;
import io.docstore.service.http.HttpServer;
import io.docstore.service.http.ReadRoutes;
import io.docstore.service.inbox.Inbox;
import io.docstore.service.metrics.Metrics;
import io.docstore.service.rpc.RpcServer;
import io.docstore.service.updater.UpdateParser;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The composition root of a running primary: builds and starts everything in order (metrics, cache,
 * store with recovery, read port, RPC port, admin port, inbox) and stops it in reverse. {@code
 * serve} and the end-to-end tests use it.
 *
 * <p>Thread-safe: {@link #close} may be called from a shutdown hook while requests run.
 */
public final class Service implements Closeable {

  private static final Logger log = LoggerFactory.getLogger(Service.class);

  private final DocstoreConfig config;
  private final PrometheusMeterRegistry registry;
  private final DocCache cache;
  private final DocStore store;
  private final HttpServer read;
  private final HttpServer admin;
  private final RpcServer rpc;
  private final Inbox inbox;

  /** Kafka mode's updater; null when updates come over the admin port. */
  private final io.docstore.service.kafka.KafkaIngest kafka;

  /** The shard map this node serves and checks reads against; null without one. */
  private final io.docstore.service.cluster.ClusterView cluster;

  /** Publishes queue/replication.manifest for replicas; null when turned off. */
  private final io.docstore.queue.replication.ManifestPublisher manifest;

  private volatile boolean ready;
  private volatile boolean closed;

  /** Set by {@link #close}: {@code /readyz} says "draining" during the drain period. */
  private volatile boolean draining;

  private Service(DocstoreConfig config) throws IOException, InterruptedException {
    this.config = config;
    this.registry = Metrics.newRegistry();
    this.cache = cacheFor(config, registry);
    try {
      this.store =
          DocStore.open(config.dataDir(), storeOptions(config, cache, registry, config.gc()));
    } catch (IOException | RuntimeException e) {
      cache.close();
      Metrics.close(registry);
      throw e;
    }
    HttpServer readServer = null;
    HttpServer adminServer = null;
    RpcServer rpcServer = null;
    Inbox in = null;
    io.docstore.service.kafka.KafkaIngest ingest = null;
    io.docstore.service.cluster.ClusterView view =
        io.docstore.service.cluster.ClusterView.of(config);
    String opening = "docstore.http.read.port";
    try {
      readServer =
          new HttpServer(
                  "read",
                  config.readAddress(),
                  limits(config, 8 * 1024),
                  new ReadRoutes(
                      store,
                      config.maxIdsPerRequest(),
                      config.maxResponseBytes(),
                      "updates go to the admin port",
                      view),
                  registry)
              .start();
      if (config.rpcEnabled()) {
        opening = "docstore.rpc.port";
        rpcServer =
            new RpcServer(
                store,
                RpcServer.Options.builder()
                    .host(config.rpcAddress().getAddress().getHostAddress())
                    .port(config.rpcAddress().getPort())
                    .maxFrameBytes(config.rpcMaxFrameBytes())
                    .maxIdsPerRequest(config.rpcMaxBatch())
                    .maxConnections(config.maxConnections())
                    .idleTimeout(config.idleTimeout())
                    .frameTimeout(config.requestTimeout())
                    .build(),
                registry,
                view);
        rpcServer.start();
      }
      UpdateParser parser = new UpdateParser(config.maxBodyBytes());
      opening = "docstore.http.admin.port";
      adminServer =
          new HttpServer(
                  "admin",
                  config.adminAddress(),
                  limits(config, Math.max(config.bulkMaxBytes(), config.maxBodyBytes())),
                  new AdminRoutes(
                      store,
                      store,
                      parser,
                      config.bulkMaxLines(),
                      config.adminToken(),
                      this::stats,
                      this::notReady,
                      registry,
                      store.reclamation(),
                      config.kafka() == null ? null : writesRefused(config.kafka()),
                      view),
                  registry)
              .start();
      if (config.inboxDir() != null) {
        in =
            Inbox.start(
                config.inboxDir(),
                config.dataDir(),
                store,
                parser,
                config.bulkMaxLines(),
                config.maxBodyBytes(),
                config.inboxPollInterval(),
                registry);
      }
      if (config.kafka() != null) {
        ingest =
            io.docstore.service.kafka.KafkaIngest.start(
                config.kafka(),
                store,
                config.maxBodyBytes(),
                registry,
                view == null || view.shard() == null ? null : view,
                config.dropDelay());
      }
    } catch (IOException | InterruptedException | RuntimeException e) {
      if (ingest != null) {
        ingest.close();
      }
      if (in != null) {
        in.close();
      }
      if (adminServer != null) {
        adminServer.close(Duration.ZERO);
      }
      if (rpcServer != null) {
        rpcServer.close();
      }
      if (readServer != null) {
        readServer.close(Duration.ZERO);
      }
      if (view != null) {
        view.close();
      }
      store.close();
      cache.close();
      Metrics.close(registry);
      if (e instanceof io.docstore.service.http.PortInUseException) {
        throw new io.docstore.service.config.ConfigError(opening, e.getMessage());
      }
      throw e;
    }
    this.read = readServer;
    this.rpc = rpcServer;
    this.admin = adminServer;
    this.inbox = in;
    this.kafka = ingest;
    this.cluster = view;
    this.manifest =
        config.replicationManifestInterval().isZero()
            ? null
            : new io.docstore.queue.replication.ManifestPublisher(
                io.docstore.io.FileSystem.real(),
                config.dataDir().resolve("queue"),
                store::durableSequence,
                io.docstore.queue.format.BlockFormat.HEADER_LENGTH + config.queueBlockSize(),
                config.replicationManifestInterval().toMillis());
    io.micrometer.core.instrument.Gauge.builder("docstore.ready", this, s -> s.ready ? 1 : 0)
        .description("1 while /readyz answers 200 (0 while starting and while draining)")
        .register(registry);
    this.ready = true;
  }

  /** Opens the store (re-indexing what the checkpoint does not cover) and starts the ports. */
  public static Service start(DocstoreConfig config) throws IOException, InterruptedException {
    return new Service(config);
  }

  /**
   * The configured cache tier: memcached when servers are listed (unreachable servers are retried
   * in the background, reads fall back to disk meanwhile), else the in-process cache.
   */
  public static DocCache cacheFor(
      DocstoreConfig config, io.micrometer.core.instrument.MeterRegistry registry)
      throws IOException {
    if (!config.memcachedServers().isEmpty()) {
      return MemcachedDocCache.create(
          config.memcachedServers(),
          config.memcachedTimeout(),
          io.docstore.service.cache.CacheEpoch.open(FileSystem.real(), config.dataDir()),
          registry);
    }
    return new OffHeapDocCache(config.cacheBytes());
  }

  /** The store options the configuration asks for. */
  public static DocStoreOptions storeOptions(
      DocstoreConfig config,
      DocCache cache,
      io.micrometer.core.instrument.MeterRegistry registry,
      io.docstore.service.gc.GcOptions gc) {
    FileSystem fs = FileSystem.real();
    return DocStoreOptions.builder(cache)
        .fileSystem(fs)
        .registry(registry)
        .maxBodyBytes(config.maxBodyBytes())
        .defaultTtl(config.defaultTtl())
        .groups(config.groups())
        .fedByLog(config.kafka() != null)
        .gc(gc)
        .checkpointInterval(config.checkpointInterval())
        .queueOptions(
            QueueOptions.builder()
                .fileSystem(fs)
                .syncPolicy(config.sync())
                .blockSize(config.queueBlockSize())
                .segmentSize(config.queueSegmentSize())
                .dictionaryBytes(config.queueDictionaryBytes())
                .dictionarySamples(config.queueDictionarySamples())
                .maxBodyBytes(config.maxBodyBytes())
                .blockCacheBytes(config.queueBlockCacheBytes())
                .mappedReads(config.queueMappedReads())
                .bytesPerSync(config.queueBytesPerSync())
                .build())
        .indexOptions(indexOptions(config).fileSystem(fs).build())
        .build();
  }

  /**
   * The index options the configuration asks for, shared by the primary and by replicas. The index
   * is derived from the queue: no fsync per write; its owner syncs it at each checkpoint.
   */
  public static IndexOptions.Builder indexOptions(DocstoreConfig config) {
    return IndexOptions.builder()
        .syncPolicy(SyncPolicy.NONE)
        .memTableBytes(config.indexMemtableBytes())
        .bloomFalsePositiveRate(config.bloomFalsePositiveRate())
        .bloomMemoryBytes(config.bloomMemoryBytes())
        .backgroundWriteRate(config.indexBackgroundWriteRate())
        .backgroundNice(config.indexBackgroundNice())
        .pageCacheBytes(config.indexPageCacheBytes())
        .mappedReads(config.indexMappedReads());
  }

  private static HttpServer.Limits limits(DocstoreConfig c, int maxBody) {
    return new HttpServer.Limits(
        c.maxRequestLine(),
        c.maxHeaderSize(),
        maxBody,
        c.idleTimeout(),
        c.requestTimeout(),
        c.maxConnections(),
        c.workerThreads(),
        c.workerQueue());
  }

  /**
   * The answer to a write on the admin port in Kafka mode (409): the topic is the only writer, so
   * the queue and the topic never disagree (docs/decisions.md, "Kafka mode: the topic is the only
   * writer").
   */
  private static String writesRefused(io.docstore.service.kafka.KafkaOptions k) {
    return "updates come from Kafka topic "
        + k.topic()
        + ", partitions "
        + k.partitions()
        + "; produce with `docstore produce` or DocProducer";
  }

  /** The {@code /stats} document. */
  public Map<String, Object> stats() {
    Map<String, Object> m = new LinkedHashMap<>(store.stats());
    if (kafka != null) {
      m.put("kafka", kafka.stats());
    }
    m.put("dataDir", config.dataDir().toAbsolutePath().toString());
    m.put("sync", config.sync().toString());
    m.put("readConnections", read == null ? 0 : read.openConnections());
    return m;
  }

  public DocStore store() {
    return store;
  }

  public PrometheusMeterRegistry registry() {
    return registry;
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

  public String readUrl() {
    return "http://" + hostForUrl(read.host()) + ":" + read.port();
  }

  public String adminUrl() {
    return "http://" + hostForUrl(admin.host()) + ":" + admin.port();
  }

  private static String hostForUrl(String host) {
    return host.contains(":") ? "[" + host + "]" : host;
  }

  public boolean ready() {
    return ready;
  }

  /**
   * Why {@code /readyz} answers 503 now ("starting", "draining", in Kafka mode "catching up" while
   * a partition lags more than {@code max-lag} messages), or null when ready.
   */
  private String notReady() {
    if (!ready) {
      return draining ? "draining" : "starting";
    }
    return kafka == null ? null : kafka.notReady();
  }

  /**
   * Graceful stop within the configured shutdown timeout: not ready, stop the Kafka ingest, the
   * inbox and the admin port (no new writes), drain and stop the read port, then sync and close the
   * store and the cache.
   */
  @Override
  public synchronized void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    ready = false;
    draining = true;
    io.docstore.service.http.HealthRoutes.drain(config.drainPeriod());
    Duration grace = config.shutdownTimeout();
    long t0 = System.nanoTime();
    if (kafka != null) {
      kafka.close();
    }
    if (inbox != null) {
      inbox.close();
    }
    admin.close(grace);
    if (rpc != null) {
      rpc.close();
    }
    read.close(remaining(grace, t0));
    if (cluster != null) {
      cluster.close();
    }
    if (manifest != null) {
      manifest.close();
    }
    try {
      store.close();
    } finally {
      cache.close();
      Metrics.close(registry);
    }
    log.info("stopped in {} ms", (System.nanoTime() - t0) / 1_000_000);
  }

  private static Duration remaining(Duration grace, long t0) {
    Duration left = grace.minusNanos(System.nanoTime() - t0);
    return left.isNegative() ? Duration.ZERO : left;
  }
}
