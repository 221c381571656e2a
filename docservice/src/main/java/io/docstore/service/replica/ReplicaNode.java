package io.docstore.service.replica;

import io.docstore.index.LsmIndex;
import io.docstore.io.CorruptionException;
import io.docstore.io.FileSystem;
import io.docstore.io.NoSpaceException;
import io.docstore.queue.Op;
import io.docstore.queue.Record;
import io.docstore.queue.follow.FollowPoint;
import io.docstore.queue.follow.FollowerCounters;
import io.docstore.queue.follow.QueueFollower;
import io.docstore.queue.replication.ReplicationManifest;
import io.docstore.service.Document;
import io.docstore.service.DocumentSource;
import io.docstore.service.cache.OffHeapDocCache;
import io.docstore.service.store.CachedReads;
import io.docstore.service.store.StoreMetrics;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A read replica: pulls the primary's queue with rsync every interval, ingests what the copied
 * manifest declares durable into its own LSM index, persists its ingestion point, and serves reads
 * ({@link DocumentSource}) from its verified copy.
 *
 * <p>Directory layout: {@code queue/} (rsync's copy; nothing else writes there), {@code index/},
 * {@code replica.point} (where ingestion resumes after a restart).
 *
 * <p>Durability of the derived state, as on the primary: the index runs without its own fsync; at
 * every checkpoint interval the ingest thread reads the point P (everything before it was put into
 * the index on this very thread), syncs the index, then publishes P atomically. After a crash,
 * ingestion resumes at P and re-puts records after it, in order, which yields the same index.
 *
 * <p>When the index refuses a batch, ingestion recovers in place, without a restart: a full disk
 * ({@link NoSpaceException}) keeps the batch and retries it first in every round until it goes in
 * (the follower re-delivers the block it was in; re-putting records in order is idempotent); no
 * point is persisted meanwhile. Any other index failure reopens the index and rewinds the follower
 * to the last persisted point (reads fail for that moment, and the applied sequence steps back to
 * the point, since the reopened index may lack what came after it), then ingestion goes on.
 *
 * <p>Reads go through the same {@link CachedReads} path as the primary's, with an in-process
 * document cache: the ingest path sets every record it puts into the index (a delete leaves a
 * tombstone), read misses fill it. A rewind clears the cache, which then follows the reopened
 * index again (the rewind steps reads back to the persisted point, cache and index alike).
 *
 * <p>Thread-safety: one ingest thread does pulls, ingestion and checkpoints; reads from any thread.
 */
public final class ReplicaNode implements DocumentSource, Closeable {

  private static final Logger LOG = LoggerFactory.getLogger(ReplicaNode.class);
  public static final String POINT_FILE = "replica.point";
  private static final int BATCH = 1024;

  private final ReplicaOptions options;
  private final FileSystem fs = FileSystem.real();
  private final RsyncPuller puller;
  private final Path queueDir;
  /** Replaced (ingest thread) when a failed index is reopened and the follower rewound. */
  private volatile QueueFollower follower;
  private volatile LsmIndex index;
  private final Thread thread;
  private final Object wake = new Object();
  private final long[] ids = new long[BATCH];
  private final long[] values = new long[BATCH];
  private final Record[] batch = new Record[BATCH];
  /**
   * In-process only, never memcached: a lagging replica's ingest {@code set}s would write older
   * versions into a cache the primary and other replicas share.
   */
  private final OffHeapDocCache cache;
  private final CachedReads reads;
  /** Advanced after each batch is in the index and the cache (the fill guard of {@link CachedReads}). */
  private volatile long appliedVersion;
  private int pending;
  /**
   * The index's refusal of the pending batch while it lasts (null once a batch goes in): the
   * follower has moved past records the index may lack, so no point is persisted meanwhile.
   */
  private volatile Exception ingestFailure;
  /** The index failed otherwise than for space: reopen it and rewind the follower. Ingest thread only. */
  private boolean indexBroken;
  private long refusals;
  private long noSpaceLoggedNanos;
  private volatile boolean closed;
  private volatile FollowPoint checkpointed;
  private volatile long appliedThrough;
  private volatile long lastLagMillis;
  private volatile long pulls;
  private volatile long pullFailures;
  private volatile String lastPullError;
  private long lastCheckpointNanos = System.nanoTime();
  private final Timer pullTimer;
  private final DistributionSummary lagSummary;

  private ReplicaNode(ReplicaOptions options, MeterRegistry registry) throws IOException {
    this.options = options;
    Path queueDir = options.dir.resolve("queue");
    this.queueDir = queueDir;
    fs.createDirectories(queueDir);
    this.puller = new RsyncPuller(fs, options.rsyncBinary, options.source, queueDir,
        (int) options.rsyncTimeout.toSeconds());
    FollowPoint start = FollowPoint.read(fs, options.dir.resolve(POINT_FILE));
    this.checkpointed = start;
    this.appliedThrough = start.ingestedThrough();
    this.index = LsmIndex.open(options.dir.resolve("index"), options.indexOptions);
    this.follower = new QueueFollower(fs, queueDir, start, options.expectedBlockBytes);
    this.cache = new OffHeapDocCache(options.cacheBytes);
    this.reads = new CachedReads(cache, new StoreMetrics(registry), new CachedReads.Source() {
      @Override
      public long appliedVersion() {
        return appliedVersion;
      }

      @Override
      public long lookup(long id) throws IOException {
        return index.get(id);
      }

      @Override
      public Record load(long id, long address) throws IOException {
        return read(id, address);
      }
    });
    this.pullTimer = Timer.builder("docstore.replica.pull").description("one rsync pull").register(registry);
    this.lagSummary = DistributionSummary.builder("docstore.replica.lag.millis")
        .description("accepted on the primary to indexed on this replica, per record").baseUnit("milliseconds")
        .publishPercentiles(0.5, 0.99).register(registry);
    Gauge.builder("docstore.replica.applied.sequence", this, r -> r.appliedThrough).register(registry);
    Gauge.builder("docstore.replica.behind.sequences", this, r -> r.sequencesBehind()).register(registry);
    Gauge.builder("docstore.replica.behind.bytes", this, r -> r.bytesBehind()).register(registry);
    Gauge.builder("docstore.replica.lag.last.millis", this, r -> r.lastLagMillis).register(registry);
    counter(registry, "docstore.replica.checksum.failures", x -> x.checksumFailures.sum());
    counter(registry, "docstore.replica.gaps", x -> x.gaps.sum());
    counter(registry, "docstore.replica.shrunk.files", x -> x.shrunkFiles.sum());
    counter(registry, "docstore.replica.chain.mismatches", x -> x.chainMismatches.sum());
    counter(registry, "docstore.replica.refetches", x -> x.refetches.sum());
    counter(registry, "docstore.replica.read.corruptions", x -> x.readCorruptions.sum());
    counter(registry, "docstore.replica.ingested.bytes", x -> x.bytesIngested.sum());
    FunctionCounter.builder("docstore.replica.pull.failures", this, r -> r.pullFailures).register(registry);
    Gauge.builder("docstore.replica.ingest.stopped", this, r -> r.ingestFailure == null ? 0 : 1)
        .description("1 while the index refuses a batch (retried every round; a full disk recovers once space is freed)")
        .register(registry);
    this.thread = new Thread(this::run, "replica-ingest");
    this.thread.setDaemon(true);
  }

  /** A counter over the current follower's counters (a rewound follower starts its own at 0). */
  private void counter(MeterRegistry r, String name, ToDoubleFunction<FollowerCounters> f) {
    FunctionCounter.builder(name, this, n -> f.applyAsDouble(n.follower.counters())).register(r);
  }

  /** Opens the replica's index and point and starts pulling. */
  public static ReplicaNode start(ReplicaOptions options, MeterRegistry registry) throws IOException {
    ReplicaNode n = new ReplicaNode(options, registry);
    n.thread.start();
    return n;
  }

  private void run() {
    while (!closed) {
      long t0 = System.nanoTime();
      try {
        roundOnce();
      } catch (IOException | RuntimeException e) {
        if (!NoSpaceException.isNoSpace(e)) { // a full index disk is logged by flushBatch, rate-limited
          LOG.warn("replica round failed (will retry): {}", e.toString());
        }
      } catch (InterruptedException e) {
        return;
      }
      long sleep = options.pullInterval.toMillis() - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      synchronized (wake) {
        if (!closed && sleep > 0) {
          try {
            wake.wait(sleep);
          } catch (InterruptedException e) {
            return;
          }
        }
      }
    }
  }

  /** One pull, one ingestion pass, and a checkpoint when due. Ingest thread only. */
  private void roundOnce() throws IOException, InterruptedException {
    if (indexBroken) {
      reopenIndex();
    }
    flushBatch(); // a batch the index refused last round goes first
    RsyncPuller.Pull pull = puller.pull();
    pulls++;
    pullTimer.record(pull.nanos(), TimeUnit.NANOSECONDS);
    if (!pull.ok()) {
      pullFailures++;
      lastPullError = "rsync exit " + pull.exitCode() + ": " + pull.output();
      LOG.warn("pull from {} failed: {}", options.source, lastPullError);
    } else {
      lastPullError = null;
    }
    follower.poll(this::apply);
    flushBatch();
    appliedThrough = follower.point().ingestedThrough();
    if (System.nanoTime() - lastCheckpointNanos >= options.checkpointInterval.toNanos()) {
      checkpoint();
    }
  }

  private void apply(Record r) throws IOException {
    ids[pending] = r.id();
    values[pending] = r.op() == Op.DELETE ? LsmIndex.DELETED : r.address();
    batch[pending] = r;
    pending++;
    long lag = System.currentTimeMillis() - r.acceptedAtMillis();
    lastLagMillis = lag;
    lagSummary.record(lag);
    if (pending == BATCH) {
      flushBatch();
    }
  }

  /** Puts the pending batch; on failure keeps it for the next round (see the class comment). */
  private void flushBatch() throws IOException {
    if (pending == 0) {
      return;
    }
    try {
      index.putAll(ids, values, pending);
    } catch (IOException | RuntimeException e) {
      ingestFailure = e;
      refusals++;
      if (NoSpaceException.isNoSpace(e)) {
        long now = System.nanoTime();
        if (refusals == 1 || now - noSpaceLoggedNanos >= TimeUnit.SECONDS.toNanos(30)) {
          noSpaceLoggedNanos = now;
          LOG.warn("replica index disk full: batch of {} records refused ({} times so far); retried every round, "
              + "ingestion resumes once space is freed: {}", pending, refusals, e.toString());
        }
      } else {
        indexBroken = true;
        LOG.error("replica index refused a batch ({}); reopening it and resuming from the persisted point {}",
            e.toString(), checkpointed.ingestedThrough());
      }
      throw e;
    }
    for (int i = 0; i < pending; i++) {
      CachedReads.ingested(cache, batch[i]);
      batch[i] = null;
    }
    appliedVersion++;
    pending = 0;
    if (ingestFailure != null) {
      LOG.info("replica index accepts batches again after {} refusals", refusals);
      ingestFailure = null;
      refusals = 0;
    }
  }

  /**
   * Reopens a failed index and rewinds the follower to the last persisted point; the records after
   * it are ingested again (idempotent). Ingest thread only; on failure the next round tries again.
   */
  private void reopenIndex() throws IOException {
    try {
      index.close();
    } catch (IOException | RuntimeException e) {
      LOG.warn("closing the failed replica index: {}", e.toString());
    }
    index = LsmIndex.open(options.dir.resolve("index"), options.indexOptions);
    FollowPoint p = checkpointed;
    QueueFollower old = follower;
    follower = new QueueFollower(fs, queueDir, p, options.expectedBlockBytes);
    old.close();
    Arrays.fill(batch, null);
    pending = 0;
    // The reopened index is at the point; records after it are ingested again. Drop what the cache
    // holds, which may be ahead of the index, so that cache and index answer alike again.
    cache.clear();
    appliedVersion++;
    appliedThrough = p.ingestedThrough();
    indexBroken = false;
    LOG.info("replica index reopened; ingestion resumes after sequence {}", p.ingestedThrough());
  }

  /** Syncs the index and publishes the point (ordering in the class comment). Ingest thread or close. */
  private void checkpoint() throws IOException {
    if (pending > 0 || indexBroken) {
      return; // the follower is past records the index may lack: keep the last good point
    }
    FollowPoint p = follower.point();
    lastCheckpointNanos = System.nanoTime();
    if (p.equals(checkpointed)) {
      return;
    }
    index.sync();
    p.publish(fs, options.dir.resolve(POINT_FILE), System.currentTimeMillis());
    checkpointed = p;
  }

  @Override
  public Document get(long id) throws IOException {
    checkId(id);
    return reads.get(id);
  }

  @Override
  public boolean cachesInProcess() {
    return true;
  }

  @Override
  public long copyIfCached(long id, io.netty.buffer.ByteBuf out) {
    return id < 0 ? -1 : reads.copyIfCached(id, out);
  }

  /** As on the primary (see {@link CachedReads#getAll}). */
  @Override
  public Document[] getAll(long[] ids) throws IOException {
    for (long id : ids) {
      checkId(id);
    }
    return reads.getAll(ids);
  }

  private static void checkId(long id) {
    if (id < 0) {
      throw new IllegalArgumentException("document ID must be non-negative, got " + id);
    }
  }

  private Record read(long id, long address) throws IOException {
    Record r = follower.read(address);
    if (r.id() != id || r.op() != Op.PUT) {
      throw new CorruptionException(follower.directory(), address, "index maps id " + id + " to a record of id "
          + r.id() + " (" + r.op() + ")");
    }
    return r;
  }

  /** The queue address the index maps {@code id} to, or a negative "absent"/"deleted" value (tools, tests). */
  public long addressOf(long id) throws IOException {
    return index.get(id);
  }

  /** The highest sequence readable here (everything up to it is indexed). */
  public long appliedThrough() {
    return appliedThrough;
  }

  /** Waits until sequence {@code s} is readable here (read-your-writes from a replica); false on timeout. */
  public boolean awaitSequence(long s, long timeoutMillis) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    while (appliedThrough < s) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(5);
    }
    return true;
  }

  public QueueFollower follower() {
    return follower;
  }

  public RsyncPuller puller() {
    return puller;
  }

  private long sequencesBehind() {
    ReplicationManifest m = follower.manifest();
    return m == null ? 0 : Math.max(0, m.lastSequence() - appliedThrough);
  }

  private long bytesBehind() {
    ReplicationManifest m = follower.manifest();
    FollowPoint p = follower.point();
    if (m == null || p.segment() > m.segment()) {
      return 0;
    }
    return p.segment() == m.segment() ? Math.max(0, m.durableLength() - p.offset()) : m.durableLength();
  }

  /** The {@code /stats} figures of the replica. */
  public Map<String, Object> stats() {
    Map<String, Object> s = new LinkedHashMap<>();
    ReplicationManifest m = follower.manifest();
    FollowerCounters c = follower.counters();
    s.put("role", "replica");
    s.put("source", options.source);
    s.put("appliedSequence", appliedThrough);
    s.put("primaryDurableSequence", m == null ? 0 : m.lastSequence());
    s.put("behindSequences", sequencesBehind());
    s.put("behindBytes", bytesBehind());
    s.put("lastLagMillis", lastLagMillis);
    s.put("point", follower.point().toString());
    s.put("checkpoint", checkpointed.toString());
    s.put("pulls", pulls);
    s.put("pullFailures", pullFailures);
    s.put("lastPullError", lastPullError);
    s.put("ingestStopped", ingestFailure == null ? null : ingestFailure.toString());
    s.put("ingestError", follower.lastError());
    s.put("checksumFailures", c.checksumFailures.sum());
    s.put("gaps", c.gaps.sum());
    s.put("shrunkFiles", c.shrunkFiles.sum());
    s.put("chainMismatches", c.chainMismatches.sum());
    s.put("refetches", c.refetches.sum());
    s.put("readCorruptions", c.readCorruptions.sum());
    s.put("ingestedRecords", c.recordsIngested.sum()); // since this process started: a resumed replica re-ingests little
    s.put("ingestedBytes", c.bytesIngested.sum());
    s.put("index", index.stats());
    s.put("cache", cache.stats());
    return s;
  }

  /** Stops the ingest thread (waiting for a pull in progress), checkpoints and closes. */
  @Override
  public void close() throws IOException {
    synchronized (wake) {
      closed = true;
      wake.notifyAll();
    }
    try {
      thread.join(TimeUnit.SECONDS.toMillis(2L * options.rsyncTimeout.toSeconds() + 10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      flushBatch();
      checkpoint();
    } finally {
      follower.close();
      index.close();
      cache.close();
    }
  }
}
