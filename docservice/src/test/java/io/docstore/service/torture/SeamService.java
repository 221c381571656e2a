package io.docstore.service.torture;

import io.docstore.index.IndexOptions;
import io.docstore.io.FileSystem;
import io.docstore.io.SyncPolicy;
import io.docstore.queue.QueueOptions;
import io.docstore.service.DocStore;
import io.docstore.service.DocStoreOptions;
import io.docstore.service.ServiceFixture;
import io.docstore.service.cache.OffHeapDocCache;
import io.docstore.service.config.DocstoreConfig;
import io.docstore.service.http.AdminRoutes;
import io.docstore.service.http.HttpServer;
import io.docstore.service.http.ReadRoutes;
import io.docstore.service.metrics.Metrics;
import io.docstore.service.updater.UpdateParser;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The service's store and HTTP ports assembled like {@code Service} does, but over a given {@link
 * FileSystem} (the fault-injecting seam), for the disk-full and fsync-failure scenarios where
 * mounting a small tmpfs is not permitted (and for the client's test of a server error, {@code
 * DocClientWritesTest}). Small segments and memtable, loopback, free ports.
 */
public final class SeamService implements AutoCloseable {

  final DocStore store;
  final HttpServer read;
  final HttpServer admin;

  private SeamService(DocStore store, HttpServer read, HttpServer admin) {
    this.store = store;
    this.read = read;
    this.admin = admin;
  }

  public static SeamService start(Path dir, FileSystem fs)
      throws IOException, InterruptedException {
    return start(dir, fs, io.docstore.service.gc.GcOptions.defaults().withEnabled(false));
  }

  /** {@link #start(Path, FileSystem)} with the space reclamation as {@code gc} says. */
  public static SeamService start(Path dir, FileSystem fs, io.docstore.service.gc.GcOptions gc)
      throws IOException, InterruptedException {
    DocstoreConfig c =
        ServiceFixture.config(
            dir,
            Map.of(
                "docstore.queue.segment-size",
                "1M",
                "docstore.queue.max-body",
                "64K",
                "docstore.queue.block-size",
                "4K",
                "docstore.index.memtable",
                "64K",
                "docstore.http.request-timeout",
                "10s"));
    DocStoreOptions o =
        DocStoreOptions.builder(new OffHeapDocCache(c.cacheBytes()))
            .fileSystem(fs)
            .maxBodyBytes(c.maxBodyBytes())
            .checkpointInterval(c.checkpointInterval())
            .queueOptions(
                QueueOptions.builder()
                    .fileSystem(fs)
                    .syncPolicy(c.sync())
                    .blockSize(c.queueBlockSize())
                    .segmentSize(c.queueSegmentSize())
                    .maxBodyBytes(c.maxBodyBytes())
                    .blockCacheBytes(c.queueBlockCacheBytes())
                    .build())
            .indexOptions(
                IndexOptions.builder()
                    .fileSystem(fs)
                    .syncPolicy(SyncPolicy.NONE)
                    .memTableBytes(c.indexMemtableBytes())
                    .bloomFalsePositiveRate(c.bloomFalsePositiveRate())
                    .bloomMemoryBytes(c.bloomMemoryBytes())
                    .build())
            .gc(gc)
            .build();
    DocStore store = DocStore.open(dir, o);
    HttpServer.Limits limits =
        new HttpServer.Limits(
            c.maxRequestLine(),
            c.maxHeaderSize(),
            4 << 20,
            c.idleTimeout(),
            c.requestTimeout(),
            64,
            8,
            256);
    io.micrometer.prometheusmetrics.PrometheusMeterRegistry meters = Metrics.newRegistry();
    HttpServer read =
        new HttpServer(
                "read",
                c.readAddress(),
                limits,
                new ReadRoutes(store, c.maxIdsPerRequest(), c.maxResponseBytes()),
                meters)
            .start();
    HttpServer admin =
        new HttpServer(
                "admin",
                c.adminAddress(),
                limits,
                new AdminRoutes(
                    store,
                    store,
                    new UpdateParser(c.maxBodyBytes()),
                    c.bulkMaxLines(),
                    "",
                    store::stats,
                    () -> null,
                    meters,
                    store.reclamation(),
                    null,
                    null),
                meters)
            .start();
    return new SeamService(store, read, admin);
  }

  String readUrl() {
    return "http://127.0.0.1:" + read.port();
  }

  public String adminUrl() {
    return "http://127.0.0.1:" + admin.port();
  }

  /**
   * Stops the ports and closes the store; a close failure (the store is failed) is returned, not
   * thrown.
   */
  IOException stop() {
    admin.close(Duration.ZERO);
    read.close(Duration.ZERO);
    try {
      store.close();
      return null;
    } catch (IOException e) {
      return e;
    }
  }

  @Override
  public void close() {
    stop();
  }
}
