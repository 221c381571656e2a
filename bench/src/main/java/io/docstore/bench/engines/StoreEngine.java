package io.docstore.bench.engines;

import io.docstore.client.Document;
import io.docstore.queue.QueueOptions;
import io.docstore.queue.QueueStats;
import io.docstore.service.DocStore;
import io.docstore.service.DocStoreOptions;
import io.docstore.service.Update;
import io.docstore.service.cache.OffHeapDocCache;
import io.docstore.service.gc.GcOptions;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * docstore as the service runs it: its {@link DocStore} (queue, index, the indexer's live-record
 * counts and the space reclamation) in process on the engine's directory, with {@link
 * DocstoreEngine}'s queue and index options ({@link DocstoreConfig}: the same budget split, block
 * size and sync none), queue segments of the write buffer's size, and no document cache (the bench
 * engine has none either: hot documents are the cache tier's job in the service). The space
 * reclamation runs as {@code gc} says: on, or off (the churn workload's {@code docstore-nogc}).
 *
 * <p>Writes are {@link Update}s collected under this engine's lock and applied by {@link #flush()}
 * with one {@link DocStore#apply} (the store's group commit: with sync none, readable and handed to
 * the OS when it returns, the shared contract). A put may carry an expiry, which the store enforces
 * itself: reads past it find nothing, and the reclamation drops expired versions.
 */
final class StoreEngine implements Engine {

  private final DocStore store;
  private final String settings;

  /** Updates since the last flush; guarded by {@code this}. */
  private List<Update> batch = new ArrayList<>();

  StoreEngine(EngineSettings s, GcOptions gc) throws IOException {
    DocstoreConfig config = new DocstoreConfig(s);
    QueueOptions qo = config.queue().segmentSize(s.writeBufferBytes()).build();
    store =
        DocStore.open(
            s.dir(),
            DocStoreOptions.builder(new OffHeapDocCache(0))
                .queueOptions(qo)
                .indexOptions(config.index)
                .gc(gc)
                .build());
    settings =
        "docstore store (DocStore.apply per batch, no document cache, queue segments of "
            + qo.segmentSize()
            + " B, space reclamation "
            + (gc.enabled()
                ? "on: target "
                    + gc.target()
                    + ", "
                    + gc.bytesPerSecond()
                    + " B/s, a pass every "
                    + gc.interval().toMillis()
                    + " ms, min garbage "
                    + gc.minGarbage()
                : "off")
            + ") over "
            + config.describe(qo);
  }

  @Override
  public synchronized void put(byte[] key, byte[] value) {
    batch.add(Update.put(DocstoreEngine.id(key), value));
  }

  @Override
  public boolean expires() {
    return true;
  }

  @Override
  public synchronized void put(byte[] key, byte[] value, long expiresAtMillis) {
    batch.add(Update.put(DocstoreEngine.id(key), value, expiresAtMillis));
  }

  @Override
  public synchronized void delete(byte[] key) {
    batch.add(Update.delete(DocstoreEngine.id(key)));
  }

  @Override
  public byte[] get(byte[] key) throws IOException {
    Document d = store.get(DocstoreEngine.id(key));
    return d == null ? null : d.body();
  }

  @Override
  public synchronized void flush() throws IOException {
    if (batch.isEmpty()) {
      return;
    }
    List<Update> updates = batch;
    batch = new ArrayList<>();
    store.apply(updates);
  }

  /**
   * The store's {@code /stats} figures: its space amplification, the stored bytes its space
   * reclamation relocated (as they were stored in their victims) and reclaimed, and the queue's
   * block bytes written since open (the workload's records and the relocated ones).
   */
  @Override
  public Map<String, Number> spaceStats() {
    Map<String, Object> stats = store.stats();
    Map<?, ?> gc = (Map<?, ?>) stats.get("gc");
    return Map.of(
        "space_amplification", (Number) gc.get("spaceAmplification"),
        "bytes_relocated", (Number) gc.get("bytesRelocated"),
        "bytes_reclaimed", (Number) gc.get("bytesReclaimed"),
        "bytes_stored", ((QueueStats) stats.get("queue")).storedBytes());
  }

  @Override
  public String settings() {
    return settings;
  }

  @Override
  public void close() throws IOException {
    try {
      flush();
    } finally {
      store.close();
    }
  }
}
