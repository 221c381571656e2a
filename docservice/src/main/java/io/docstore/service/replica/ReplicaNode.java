package io.docstore.service.replica;

import io.docstore.client.Document;
import io.docstore.io.CorruptionException;
import io.docstore.io.FileSystem;
import io.docstore.queue.QueueRecord;
import io.docstore.queue.follow.FollowerCounters;
import io.docstore.queue.follow.QueueFollower;
import io.docstore.queue.replication.ReplicationManifest;
import io.docstore.service.DocumentSource;
import io.docstore.service.groups.FieldGroups;
import io.docstore.service.groups.GroupReads;
import io.docstore.service.store.CachedReads;
import io.docstore.service.store.GroupKeys;
import io.docstore.service.store.SourceKeys;
import io.docstore.service.store.StoreMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A read replica: pulls the primary's queue with rsync every interval, ingests what the copied
 * manifest declares durable into its own LSM index, persists its ingestion point, and serves reads
 * ({@link DocumentSource}) from its verified copy. Composes the parts that do it and owns the
 * reads:
 *
 * <ul>
 *   <li>{@link PullLoop}: the ingest thread, one round (pull, ingestion pass, checkpoint when due)
 *       per pull interval, and the pull figures;
 *   <li>{@link RsyncPuller}: one pull with the rsync binary;
 *   <li>{@link ReplicaIngester}: the follower, the index and the document cache, the batches, and
 *       recovery in place when the index refuses a batch (retry on a full disk, else reopen and
 *       rewind), and the re-sync when the primary's history diverged from what was ingested;
 *   <li>{@link ReplicaCheckpoint}: {@code replica.point}, where ingestion resumes after a restart;
 *   <li>{@link Freshness}: how current the replica is known to be, its lag and readiness;
 *   <li>{@link ReplicaMeters}: the {@code docstore.replica.*} meters.
 * </ul>
 *
 * <p>Directory layout: {@code queue/} (rsync's copy; nothing else writes there), {@code index/},
 * {@code replica.point}.
 *
 * <p>Reads go through the same {@link CachedReads} path as the primary's, with the ingester's
 * in-process document cache: ingestion sets every record it puts into the index, read misses fill
 * it, a rewind clears it.
 *
 * <p>Thread-safety: one ingest thread does pulls, ingestion and checkpoints; reads from any thread.
 */
public final class ReplicaNode implements DocumentSource, Closeable {

  public static final String POINT_FILE = "replica.point";

  private final ReplicaOptions options;
  private final RsyncPuller puller;
  private final ReplicaCheckpoint checkpoint;
  private final ReplicaIngester ingester;
  private final CachedReads reads;
  private final io.docstore.service.groups.GroupMeters groupMeters;
  private final Freshness freshness;
  private final PullLoop loop;

  private ReplicaNode(ReplicaOptions options, MeterRegistry registry) throws IOException {
    this.options = options;
    FileSystem fs = FileSystem.real();
    Path queueDir = options.dir.resolve("queue");
    fs.createDirectories(queueDir);
    this.puller =
        new RsyncPuller(
            fs,
            options.rsyncBinary,
            options.source,
            queueDir,
            (int) options.rsyncTimeout.toSeconds());
    this.checkpoint =
        new ReplicaCheckpoint(fs, options.dir.resolve(POINT_FILE), options.checkpointInterval);
    StoreMetrics readMetrics = new StoreMetrics(registry);
    Timer pullTimer = ReplicaMeters.pullTimer(registry);
    this.ingester =
        new ReplicaIngester(
            fs,
            queueDir,
            options,
            checkpoint,
            ReplicaMeters.recordLag(registry),
            ReplicaMeters.divergences(registry));
    this.freshness =
        new Freshness(
            System::currentTimeMillis, options.maxStaleness, ingester.follower().manifest());
    this.reads =
        new CachedReads(
            ingester.cache(),
            readMetrics,
            new CachedReads.Source() {
              @Override
              public long appliedVersion() {
                return ingester.appliedVersion();
              }

              @Override
              public long lookup(long id) throws IOException {
                return ingester.index().get(id);
              }

              @Override
              public QueueRecord load(long id, long address) throws IOException {
                return read(id, address);
              }
            });
    this.loop = new PullLoop(options, puller, ingester, checkpoint, freshness, pullTimer);
    ReplicaMeters.bind(registry, ingester, loop, freshness);
    this.groupMeters = new io.docstore.service.groups.GroupMeters(options.groups, registry);
  }

  /** Opens the replica's index and point and starts pulling. */
  public static ReplicaNode start(ReplicaOptions options, MeterRegistry registry)
      throws IOException {
    ReplicaNode n = new ReplicaNode(options, registry);
    n.loop.start();
    return n;
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
    return GroupKeys.validDocumentId(id, options.groups.configured())
        ? reads.copyIfCached(id, out)
        : -1;
  }

  /** As on the primary (see {@link CachedReads#getAll}). */
  @Override
  public Document[] getAll(long[] ids) throws IOException {
    for (long id : ids) {
      checkId(id);
    }
    return reads.getAll(ids);
  }

  @Override
  public FieldGroups groups() {
    return options.groups;
  }

  /** As on the primary (see {@link GroupReads}). */
  @Override
  public Document[] getAll(long[] ids, String group) throws IOException {
    return GroupReads.getAll(options.groups, groupMeters, ids, group, reads::getAll);
  }

  /** As on the primary (see {@link GroupReads#projections}). */
  @Override
  public Projections projections(String group) {
    return GroupReads.projections(
        options.groups, groupMeters, group, reads::copyPartIfCached, reads::copy);
  }

  /**
   * As on the primary ({@link io.docstore.service.DocStore#visibleLogPosition}): a figure the
   * ingester keeps as it puts the copy's records into the index and the cache. After a restart of
   * the replica, a partition's position is where its newest run starts until its next run is
   * ingested (the replica does not read its copy back in sequence order to count the run).
   */
  @Override
  public long visibleLogPosition(int partition) {
    SourceKeys.key(partition); // checks the partition
    return ingester.positions().get(partition);
  }

  /** Whether the replica holds positions in an update log (its primary is fed by one). */
  @Override
  public boolean fedByLog() {
    return !ingester.positions().isEmpty();
  }

  private void checkId(long id) {
    GroupKeys.checkDocumentId(id, options.groups.configured());
  }

  private QueueRecord read(long id, long address) throws IOException {
    QueueFollower follower = ingester.follower();
    QueueRecord r = follower.read(address);
    java.nio.ByteBuffer body = java.nio.ByteBuffer.wrap(r.body());
    if (!GroupKeys.matches(
        options.groups.configured(), id, r.id(), r.op(), body, 0, r.body().length)) {
      throw new CorruptionException(
          follower.directory(),
          address,
          "index maps id " + id + " to a record of id " + r.id() + " (" + r.op() + ")");
    }
    return r;
  }

  /**
   * The queue address the index maps {@code id} to, or a negative "absent"/"deleted" value (tools,
   * tests).
   */
  public long addressOf(long id) throws IOException {
    return ingester.index().get(id);
  }

  /** The highest sequence readable here (everything up to it is indexed). */
  public long appliedThrough() {
    return ingester.appliedThrough();
  }

  /**
   * Waits until sequence {@code s} is readable here (read-your-writes from a replica); false on
   * timeout.
   */
  public boolean awaitSequence(long s, long timeoutMillis) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    while (ingester.appliedThrough() < s) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(5);
    }
    return true;
  }

  /**
   * Null while the replica is ready: it was current (everything the primary had published applied)
   * within {@code max-staleness}; else why not: {@code "catching up"} (never current since it
   * started) or {@code "stale"} (its lag passed the bound: pulls fail or ingestion stalls).
   */
  public String notReady() {
    return freshness.notReady();
  }

  /**
   * Milliseconds since the time this replica is known to be current as of (docs/replication.md,
   * "Lag and freshness"); grows while pulls fail.
   */
  public long lagMillis() {
    return freshness.lagMillis();
  }

  public QueueFollower follower() {
    return ingester.follower();
  }

  public RsyncPuller puller() {
    return puller;
  }

  /** The {@code /stats} figures of the replica. */
  public Map<String, Object> stats() {
    Map<String, Object> s = new LinkedHashMap<>();
    QueueFollower follower = ingester.follower();
    ReplicationManifest m = follower.manifest();
    FollowerCounters c = follower.counters();
    Exception ingestFailure = ingester.ingestFailure();
    s.put("role", "replica");
    s.put("source", options.source);
    s.put("appliedSequence", ingester.appliedThrough());
    s.put("primaryDurableSequence", m == null ? 0 : m.lastSequence());
    s.put(
        "primaryPublishedAt",
        m == null ? null : Instant.ofEpochMilli(m.publishedAtMillis()).toString());
    s.put("behindSequences", ingester.sequencesBehind());
    s.put("behindBytes", ingester.bytesBehind());
    long asOf = freshness.currentAsOf();
    s.put("currentAsOf", asOf < 0 ? null : Instant.ofEpochMilli(asOf).toString());
    s.put("lagSeconds", freshness.lagMillis() / 1000.0);
    s.put("secondsSinceLastSuccessfulPull", freshness.sinceLastSuccessfulPullMillis() / 1000.0);
    s.put("maxStalenessSeconds", freshness.maxStalenessMillis() / 1000.0);
    String notReady = freshness.notReady();
    s.put("ready", notReady == null ? "ready" : notReady);
    s.put("lastRecordLagMillis", ingester.lastLagMillis());
    s.put("point", follower.point().toString());
    s.put("checkpoint", checkpoint.point().toString());
    if (options.groups.configured()) {
      s.put("groups", groupMeters.stats());
    }
    s.put("pulls", loop.pulls());
    s.put("pullFailures", loop.pullFailures());
    s.put("lastPullError", loop.lastPullError());
    s.put("ingestStopped", ingestFailure == null ? null : ingestFailure.toString());
    s.put("ingestError", follower.lastError());
    s.put("checksumFailures", c.checksumFailures.sum());
    s.put("gaps", c.gaps.sum());
    s.put("shrunkFiles", c.shrunkFiles.sum());
    s.put("chainMismatches", c.chainMismatches.sum());
    s.put("refetches", c.refetches.sum());
    s.put("readCorruptions", c.readCorruptions.sum());
    s.put(
        "ingestedRecords",
        c.recordsIngested.sum()); // since this process started: a resumed replica re-ingests little
    s.put("ingestedBytes", c.bytesIngested.sum());
    s.put("index", ingester.index().stats());
    s.put("cache", ingester.cache().stats());
    return s;
  }

  /** Stops the ingest thread (waiting for a pull in progress), checkpoints and closes. */
  @Override
  public void close() throws IOException {
    loop.stop();
    try {
      ingester.flush();
      ingester.checkpoint();
    } finally {
      ingester.close();
    }
  }
}
