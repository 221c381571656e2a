package io.docstore.service.replica;

import io.docstore.index.LsmIndex;
import io.docstore.io.FileSystem;
import io.docstore.io.NoSpaceException;
import io.docstore.queue.QueueRecord;
import io.docstore.queue.follow.FollowPoint;
import io.docstore.queue.follow.QueueFollower;
import io.docstore.queue.replication.ReplicationManifest;
import io.docstore.service.cache.OffHeapDocCache;
import io.docstore.service.store.RecordBatch;
import io.docstore.service.store.SourceKeys;
import io.docstore.service.store.VisiblePositions;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ingests the replica's copy: puts what its {@link QueueFollower} delivers (what the copied
 * manifest declares durable) into the replica's LSM index, in batches, and sets every record of a
 * batch in the document cache once the batch is in the index (a delete leaves a tombstone), as
 * {@link io.docstore.service.store.CachedReads} requires. Owns the follower, the index and the
 * cache, and the applied state the reads and the figures see.
 *
 * <p>The cache is in process only, never memcached: a lagging replica's ingest {@code set}s would
 * write older versions into a cache the primary and other replicas share.
 *
 * <p>When the index refuses a batch, ingestion recovers in place, without a restart: a full disk
 * ({@link NoSpaceException}) keeps the batch and {@link #flush} retries it first in every round
 * until it goes in (the follower re-delivers the block it was in; re-putting records in order is
 * idempotent); no point is persisted meanwhile. Any other index failure marks the index broken:
 * {@link #reopenIfBroken} reopens it and rewinds the follower to the last persisted point (reads
 * fail for that moment, and the applied sequence steps back to the point, since the reopened index
 * may lack what came after it), then ingestion goes on. A rewind clears the cache, which then
 * follows the reopened index again.
 *
 * <p>When the follower finds that the replica's history is not a prefix of the primary's any more
 * (a {@link QueueFollower.Divergence}: the primary lost what it had declared durable), the replica
 * re-syncs in place ({@link #resync}): it drops its index (the index cannot take back a version),
 * persists the start as its point, deletes its copies of the diverged segment and later ones (and
 * the copied manifest), clears the cache and ingests again from the first segment; the next pulls
 * re-fetch what was deleted. Reads answer from the re-ingested state meanwhile, like a replica
 * catching up from empty. Counted in {@code docstore.replica.divergences}, logged as a WARN naming
 * segment and offset. A restart in the middle of it finds no index and starts from the start too.
 *
 * <p>Thread-safety: ingestion, rewinds, re-syncs, checkpoints and close from the ingest thread
 * (close once it stopped); the accessors from any thread.
 */
final class ReplicaIngester implements Closeable {

  private static final Logger LOG = LoggerFactory.getLogger(ReplicaIngester.class);
  private static final int BATCH = 1024;

  private final FileSystem fs;
  private final Path queueDir;
  private final ReplicaOptions options;
  private final ReplicaCheckpoint checkpoint;
  private final Timer lag;
  private final Counter divergences;

  /** Replaced when a failed index is reopened and the follower rewound. */
  private volatile QueueFollower follower;

  private volatile LsmIndex index;
  private final OffHeapDocCache cache;
  private final RecordBatch batch = new RecordBatch(BATCH);
  private int pending;

  /** How far reads see each partition of the update log (fed by the batches). */
  private final VisiblePositions positions = new VisiblePositions();

  /**
   * Advanced after each batch is in the index and the cache (the fill guard of {@link
   * io.docstore.service.store.CachedReads}).
   */
  private volatile long appliedVersion;

  private volatile long appliedThrough;
  private volatile long lastLagMillis;

  /**
   * The index's refusal of the pending batch while it lasts (null once a batch goes in): the
   * follower has moved past records the index may lack, so no point is persisted meanwhile.
   */
  private volatile Exception ingestFailure;

  /** The index failed otherwise than for space: reopen it and rewind the follower. */
  private boolean indexBroken;

  private long refusals;
  private long noSpaceLoggedNanos;

  /**
   * Opens the index in {@code options.dir} and a follower of {@code queueDir} at the persisted
   * point.
   *
   * @param lag records, per ingested record, the time from its acceptance on the primary to now
   * @param divergences counts the re-syncs after a divergence from the primary
   */
  ReplicaIngester(
      FileSystem fs,
      Path queueDir,
      ReplicaOptions options,
      ReplicaCheckpoint checkpoint,
      Timer lag,
      Counter divergences)
      throws IOException {
    this.fs = fs;
    this.queueDir = queueDir;
    this.options = options;
    this.checkpoint = checkpoint;
    this.lag = lag;
    this.divergences = divergences;
    if (!fs.exists(indexDir()) && !checkpoint.point().equals(FollowPoint.START)) {
      // A re-sync dropped the index and stopped before it persisted the start (or the index was
      // removed by hand): nothing is indexed, so ingestion starts over.
      LOG.warn(
          "replica index {} is missing but the point is {}; ingesting again from the start",
          indexDir(),
          checkpoint.point());
      checkpoint.reset();
    }
    FollowPoint start = checkpoint.point();
    this.appliedThrough = start.ingestedThrough();
    this.index = openIndex();
    this.follower = new QueueFollower(fs, queueDir, start, options.expectedBlockBytes);
    follower.loadManifest(); // what the primary last declared, known before the first pull
    this.cache = new OffHeapDocCache(options.cacheBytes);
    if (options.groups.configured()) {
      batch.groups(this::versionAt);
    }
    seedPositions();
    batch.positions(positions);
  }

  /**
   * Seeds the visible positions from the index as opened: each partition's newest SOURCE record
   * where its run starts. The run's records before the point are not read back (a replica reads its
   * copy by address only), so this is a lower bound until the partition's next run comes. A record
   * that cannot be read leaves its partition unseeded (nothing visible: also a lower bound).
   */
  private void seedPositions() throws IOException {
    try (io.docstore.index.IndexCursor c = index.scan(SourceKeys.FIRST)) {
      while (c.next() && SourceKeys.isSourceKey(c.id())) {
        try {
          positions.seedFromStart(follower.read(c.value()));
        } catch (IOException | IllegalArgumentException e) {
          LOG.warn(
              "replica: the position of partition {} cannot be read ({}); none is visible until"
                  + " its next run is ingested",
              SourceKeys.partition(c.id()),
              e.toString());
        }
      }
    }
  }

  private Path indexDir() {
    return options.dir.resolve("index");
  }

  private LsmIndex openIndex() throws IOException {
    return LsmIndex.open(indexDir(), options.indexOptions);
  }

  /**
   * One ingestion pass: everything the follower delivers now, up to the last complete batch
   * flushed; a re-sync instead if the follower found a divergence.
   *
   * @return the follower's result: the records handed on, and the error that stopped it, if any
   */
  QueueFollower.Result poll() throws IOException {
    if (appliedThrough == 0 && !batch.rebuilding()) {
      // An index built from the queue's first record: relocated records are judged by version
      // until it has caught up (RecordBatch).
      batch.rebuilding(this::versionAt);
    }
    QueueFollower.Result r = follower.poll(this::apply, batch.rebuilding());
    if (r.divergence() != null) {
      resync(r.divergence());
      return r;
    }
    flush();
    appliedThrough = follower.point().ingestedThrough();
    if (r.records() == 0 && r.error() == null) {
      batch.live(); // caught up with what the primary has published
    }
    return r;
  }

  /**
   * The version of the record at {@code address}, for a rebuild's judgement of a relocated record;
   * -1 when its segment was reclaimed since it was ingested: that record was garbage or was
   * relocated, so anything relocated after it is newer.
   */
  private long versionAt(long address) throws IOException {
    try {
      return follower.read(address).version();
    } catch (io.docstore.queue.ReclaimedAddressException e) {
      return -1;
    }
  }

  /**
   * Drops everything derived from a history the primary no longer has (see the class comment). The
   * index goes first, moved aside by a rename and then deleted, so that a crash at any step leaves
   * either the old state with a point a restart re-checks, or no index (ingest from the start).
   */
  private void resync(QueueFollower.Divergence d) throws IOException {
    if (d.reclaimed()) {
      reclaimRestarts.incrementAndGet();
    } else {
      divergences.increment();
    }
    LOG.warn(
        "replica re-sync after the {} at segment {} offset {}: dropping its index and its"
            + " copies of segments {} and later, ingesting again from the start",
        d.reclaimed() ? "primary reclaimed a segment it had not ingested" : "divergence",
        d.segment(),
        d.offset(),
        d.segment());
    batch.clear();
    pending = 0;
    ingestFailure = null;
    indexBroken = false;
    positions.clear(); // before the index goes: no position outlives what it described
    try {
      index.close();
    } catch (IOException | RuntimeException e) {
      LOG.warn("closing the diverged replica index: {}", e.toString());
    }
    Path aside = options.dir.resolve("index.diverged-" + System.currentTimeMillis());
    fs.rename(indexDir(), aside);
    fs.syncDirectory(options.dir);
    checkpoint.reset();
    deleteTree(aside);
    follower.dropCopiesFrom(d.segment());
    index = openIndex();
    follower = new QueueFollower(fs, queueDir, FollowPoint.START, options.expectedBlockBytes);
    cache.clear();
    appliedVersion++;
    appliedThrough = 0;
  }

  private void deleteTree(Path dir) throws IOException {
    for (Path f : fs.list(dir)) {
      if (Files.isDirectory(f)) {
        deleteTree(f);
      } else {
        fs.delete(f);
      }
    }
    fs.delete(dir);
  }

  /**
   * Times this replica started over because its primary reclaimed a segment it had not ingested.
   */
  private final java.util.concurrent.atomic.AtomicLong reclaimRestarts =
      new java.util.concurrent.atomic.AtomicLong();

  /** See {@link #reclaimRestarts}. */
  long reclaimRestarts() {
    return reclaimRestarts.get();
  }

  private void apply(QueueRecord r) throws IOException {
    batch.set(pending++, r);
    long millis = System.currentTimeMillis() - r.acceptedAtMillis();
    lastLagMillis = millis;
    lag.record(Math.max(0, millis), TimeUnit.MILLISECONDS);
    if (pending == BATCH) {
      flush();
    }
  }

  /** Puts the pending batch; on failure keeps it for the next round (see the class comment). */
  void flush() throws IOException {
    if (pending == 0) {
      return;
    }
    try {
      batch.apply(pending, index, null);
    } catch (IOException | RuntimeException e) {
      refused(e);
      throw e;
    }
    batch.ingested(cache, pending, r -> {});
    appliedVersion++;
    pending = 0;
    if (ingestFailure != null) {
      LOG.info("replica index accepts batches again after {} refusals", refusals);
      ingestFailure = null;
      refusals = 0;
    }
  }

  private void refused(Exception e) {
    ingestFailure = e;
    refusals++;
    if (NoSpaceException.isNoSpace(e)) {
      long now = System.nanoTime();
      if (refusals == 1 || now - noSpaceLoggedNanos >= TimeUnit.SECONDS.toNanos(30)) {
        noSpaceLoggedNanos = now;
        LOG.warn(
            "replica index disk full: batch of {} records refused ({} times so far); retried every round, "
                + "ingestion resumes once space is freed: {}",
            pending,
            refusals,
            e.toString());
      }
    } else {
      indexBroken = true;
      LOG.error(
          "replica index refused a batch ({}); reopening it and resuming from the persisted point {}",
          e.toString(),
          checkpoint.point().ingestedThrough());
    }
  }

  /**
   * Reopens an index that failed otherwise than for space and rewinds the follower to the last
   * persisted point; the records after it are ingested again (idempotent). On failure the next
   * round tries again.
   */
  void reopenIfBroken() throws IOException {
    if (!indexBroken) {
      return;
    }
    positions.clear(); // the reopened index may lack what they counted
    try {
      index.close();
    } catch (IOException | RuntimeException e) {
      LOG.warn("closing the failed replica index: {}", e.toString());
    }
    index = openIndex();
    FollowPoint p = checkpoint.point();
    QueueFollower old = follower;
    follower = new QueueFollower(fs, queueDir, p, options.expectedBlockBytes);
    follower.loadManifest();
    old.close();
    batch.clear();
    pending = 0;
    // The reopened index is at the point; records after it are ingested again. Drop what the cache
    // holds, which may be ahead of the index, so that cache and index answer alike again.
    cache.clear();
    appliedVersion++;
    appliedThrough = p.ingestedThrough();
    indexBroken = false;
    seedPositions();
    LOG.info("replica index reopened; ingestion resumes after sequence {}", p.ingestedThrough());
  }

  /**
   * Persists the follower's point ({@link ReplicaCheckpoint#publish}), unless the follower is past
   * records the index may lack (a refused batch, a broken index), or would split a document from
   * its projections (the batch holds a GROUPS record whose document comes next): then the last good
   * point stays.
   */
  void checkpoint() throws IOException {
    if (pending > 0 || indexBroken || batch.holdsGroups()) {
      return;
    }
    checkpoint.publish(follower.point(), index);
  }

  QueueFollower follower() {
    return follower;
  }

  LsmIndex index() {
    return index;
  }

  OffHeapDocCache cache() {
    return cache;
  }

  /** How far reads see each partition of the update log. */
  VisiblePositions positions() {
    return positions;
  }

  /**
   * Advances after every batch put and every rewind (see {@link
   * io.docstore.service.store.CachedReads.Source#appliedVersion}).
   */
  long appliedVersion() {
    return appliedVersion;
  }

  /** The highest sequence readable here (everything up to it is indexed). */
  long appliedThrough() {
    return appliedThrough;
  }

  /** From acceptance on the primary to ingestion here, for the last record ingested. */
  long lastLagMillis() {
    return lastLagMillis;
  }

  /** The index's refusal of the pending batch while it lasts, else null. */
  Exception ingestFailure() {
    return ingestFailure;
  }

  /** Sequences the copied manifest declares durable and this replica has not applied yet. */
  long sequencesBehind() {
    ReplicationManifest m = follower.manifest();
    return m == null ? 0 : Math.max(0, m.lastSequence() - appliedThrough);
  }

  /** Durable bytes of the copied manifest's segment the follower has not reached yet. */
  long bytesBehind() {
    ReplicationManifest m = follower.manifest();
    FollowPoint p = follower.point();
    if (m == null || p.segment() > m.segment()) {
      return 0;
    }
    return p.segment() == m.segment()
        ? Math.max(0, m.durableLength() - p.offset())
        : m.durableLength();
  }

  /** Closes the follower, the index and the cache (without a checkpoint). */
  @Override
  public void close() throws IOException {
    follower.close();
    index.close();
    cache.close();
  }
}
