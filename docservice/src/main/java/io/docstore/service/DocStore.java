package io.docstore.service;

import com.google.common.base.Throwables;
import io.docstore.client.Document;
import io.docstore.index.LsmIndex;
import io.docstore.io.CorruptionException;
import io.docstore.io.DirectoryLock;
import io.docstore.io.FileSystem;
import io.docstore.io.KillPoints;
import io.docstore.io.NoSpaceException;
import io.docstore.queue.Appended;
import io.docstore.queue.DocQueue;
import io.docstore.queue.Op;
import io.docstore.queue.QueueReader;
import io.docstore.queue.QueueRecord;
import io.docstore.queue.QueueTailer;
import io.docstore.queue.QueueWriter;
import io.docstore.queue.RecordBody;
import io.docstore.queue.format.Address;
import io.docstore.service.cache.DocCache;
import io.docstore.service.gc.ExpiryHorizons;
import io.docstore.service.gc.Reclamation;
import io.docstore.service.gc.SpaceReclaimer;
import io.docstore.service.groups.FieldGroups;
import io.docstore.service.groups.GroupReads;
import io.docstore.service.groups.Regroup;
import io.docstore.service.metrics.StoreMeters;
import io.docstore.service.store.CachedReads;
import io.docstore.service.store.GroupKeys;
import io.docstore.service.store.IndexAside;
import io.docstore.service.store.IndexCheckpoint;
import io.docstore.service.store.Indexer;
import io.docstore.service.store.LiveRecords;
import io.docstore.service.store.SalvageRebuild;
import io.docstore.service.store.SourceKeys;
import io.docstore.service.store.StoreMetrics;
import io.docstore.service.store.VisiblePositions;
import io.micrometer.core.instrument.Gauge;
import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store: the queue (source of truth) + the LSM index (ID → newest record address, derived from
 * the queue) + a cache. Layout of its directory: {@code queue/}, {@code index/}, {@code
 * index.checkpoint}, {@code LOCK}.
 *
 * <p>Write path: append every update to the queue, wait once for durability (group commit), then
 * let the {@link Indexer} apply all records up to the last one in sequence order; return. So an
 * acknowledged write is durable and readable here (read-your-writes).
 *
 * <p>Read path: cache, then index, then the queue record, whose ID and operation are checked
 * against the request: a mismatch is a {@link CorruptionException} (and a metric), never a wrong
 * document. A read miss fills the cache only if no record was indexed since its index lookup, so a
 * slow reader cannot put back a version a concurrent writer just replaced.
 *
 * <p>Durability of the index: it runs without its own fsync; every checkpoint interval the store
 * syncs it and then publishes "indexed through S" atomically. At open, records after S are
 * re-indexed from the queue (proof in {@code docs/design/durability.md}).
 *
 * <p>Thread-safe. One process per directory (enforced with a lock file).
 */
public final class DocStore implements DocumentSource, DocumentSink, Closeable {

  private static final Logger log = LoggerFactory.getLogger(DocStore.class);
  private static final long INDEX_WAIT_MILLIS = 30_000;

  private final Path dir;
  private final FileSystem fs;
  private final DocQueue queue;
  private final QueueWriter writer;
  private final QueueReader reader;
  private final LsmIndex index;
  private final DocCache cache;
  private final Indexer indexer;
  private final CachedReads reads;
  private final StoreMetrics metrics;
  private final int maxBodyBytes;
  private final long defaultTtlMillis;
  private final DirectoryLock lock;

  /** The field groups every write is projected onto (docs/design/groups.md). */
  private final FieldGroups groups;

  private final io.docstore.service.groups.GroupMeters groupMeters;

  /** Null when opened read-only. */
  private final ScheduledExecutorService checkpointer;

  /**
   * The thread the space reclamation's records are appended on, at the writers' priority. The
   * reclamation's own thread runs at the index's background nice: had it held the queue writer's
   * lock itself, every time the scheduler preempted it there a writer waiting for that lock would
   * wait too, for a time slice (a priority inversion that cost the writers 5-13% of their time in
   * the store ingest benchmark).
   */
  private final ExecutorService relocationAppends;

  /** The space reclamation; null when read-only. */
  private final Reclamation reclamation;

  /** Live records per queue segment: what space reclamation could give back. */
  private final LiveRecords liveRecords;

  /**
   * Opened by {@link #openReadOnly}: nothing on disk changes; writes are refused, and the queue's
   * records past the checkpoint are indexed in memory only.
   */
  private final boolean readOnly;

  private final Object checkpointLock = new Object();
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile long checkpointed;

  /**
   * Where this open moved a damaged (or requested) index before rebuilding it from the queue, or
   * null.
   */
  private final Path indexMovedAside;

  /** What a rebuild that skipped damaged queue data did, or null. */
  private final SalvageRebuild.Report skippedDamage;

  /**
   * The file a rebuild that skipped damaged queue data leaves in {@code index.damaged-<millis>/}:
   * its full report (the damaged stretches and every ID it could not recover).
   */
  public static final String SKIPPED_DAMAGE_REPORT = SalvageRebuild.REPORT_FILE;

  /** The write path (apply, applyFromLog); null when opened read-only. */
  private final StoreWrites writes;

  /** How far reads see each partition of the update log (fed by the indexer). */
  private final VisiblePositions visible = new VisiblePositions();

  /** Whether the store is a shard fed by an update log (Kafka mode). */
  private final boolean fedByLog;

  private long checkpointNoSpaceLoggedNanos = System.nanoTime() - TimeUnit.MINUTES.toNanos(1);

  private DocStore(
      Path dir,
      DocStoreOptions o,
      DirectoryLock lock,
      Path movedAside,
      SalvageRebuild.Report skippedDamage,
      boolean readOnly)
      throws IOException {
    this.dir = dir;
    this.readOnly = readOnly;
    this.skippedDamage = skippedDamage;
    this.fs = o.fileSystem;
    this.cache = o.cache;
    this.maxBodyBytes = o.maxBodyBytes;
    this.defaultTtlMillis = o.defaultTtl.toMillis();
    this.groups = o.groups;
    this.fedByLog = o.fedByLog;
    this.groupMeters = new io.docstore.service.groups.GroupMeters(o.groups, o.registry);
    this.lock = lock;
    this.metrics = new StoreMetrics(o.registry);
    DocQueue q = null;
    LsmIndex idx = null;
    Path rebuiltFrom = null;
    try {
      q =
          readOnly
              ? DocQueue.openReadOnly(dir.resolve("queue"), o.queueOptions)
              : DocQueue.open(dir.resolve("queue"), o.queueOptions);
      long last = q.lastSequence();
      long through = 0;
      String distrust;
      Path aside = movedAside;
      LiveRecords counted = null;
      try {
        idx =
            readOnly
                ? LsmIndex.openReadOnly(dir.resolve("index"), o.indexOptions)
                : LsmIndex.open(dir.resolve("index"), o.indexOptions);
        through = IndexCheckpoint.read(fs, dir);
        // Counting the live records reads every page of the index: a damaged page is found here,
        // at open, and repaired like any damage found at open (rebuilt from the queue).
        counted = countLive(idx, q);
        distrust =
            through > last
                ? "its checkpoint says sequence "
                    + through
                    + " is indexed but the queue ends at "
                    + last
                    + " (queue data lost: possible only with sync=none and a power failure)"
                : null;
      } catch (CorruptionException e) {
        distrust = "it is damaged: " + e.getMessage();
      }
      if (distrust != null && readOnly) {
        throw new IOException(
            "the index cannot be trusted ("
                + distrust
                + "); a read-only open does not repair it: start the server, which rebuilds it"
                + " from the queue, or run docstore rebuild-index");
      }
      if (distrust != null) {
        closeQuietly(idx);
        idx = null;
        aside = IndexAside.move(fs, dir, System.currentTimeMillis());
        log.error(
            "the index cannot be trusted ({}); it is derived from the queue, so it is rebuilt from the queue's"
                + " first record; the old index files are kept in {}",
            distrust,
            aside);
        idx = LsmIndex.open(dir.resolve("index"), o.indexOptions);
        through = IndexCheckpoint.read(fs, dir);
        counted = countLive(idx, q);
      }
      this.indexMovedAside = aside;
      // Moved aside here because it was damaged (an asked-for rebuild is undone by the caller).
      rebuiltFrom = aside != movedAside ? aside : null;
      this.queue = q;
      this.index = idx;
      this.writer = readOnly ? null : q.writer();
      this.reader = q.reader();
      this.checkpointed = through;
      this.liveRecords = counted;
      this.indexer = new Indexer(q.tailer(through + 1), idx, cache, metrics, through, liveRecords);
      if (groups.configured()) {
        indexer.groups(address -> reader.get(address).version());
      }
      this.reads =
          new CachedReads(
              cache,
              metrics,
              new CachedReads.Source() {
                @Override
                public long appliedVersion() {
                  return indexer.appliedThrough();
                }

                @Override
                public long lookup(long id) throws IOException {
                  try {
                    return index.get(id);
                  } catch (CorruptionException e) {
                    metrics.corruption(); // an index page that fails its checksum
                    throw e;
                  }
                }

                @Override
                public QueueRecord load(long id, long address) throws IOException {
                  return DocStore.this.load(id, address);
                }

                @Override
                public long loadInto(
                    long id, long address, io.netty.buffer.ByteBuf out, long[] expiresAt)
                    throws IOException {
                  return DocStore.this.loadInto(id, address, out, expiresAt);
                }
              });
      long t0 = System.nanoTime();
      long n = indexer.recover(last, address -> reader.get(address).version());
      if (n > 0) {
        log.info(
            "re-indexed {} queue records after checkpoint {} in {} ms",
            n,
            through,
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
      }
      seedVisiblePositions();
      indexer.positions(visible);
    } catch (IOException | RuntimeException e) {
      closeQuietly(idx);
      closeQuietly(q);
      if (rebuiltFrom != null && e instanceof CorruptionException) {
        IndexAside.putBack(fs, dir, rebuiltFrom); // leave no less than was found
        throw IndexAside.rebuildStopped(dir, (CorruptionException) e, false);
      }
      throw e;
    }
    Gauge.builder("docstore.queue.last.sequence", queue, DocQueue::lastSequence)
        .register(o.registry);
    Gauge.builder("docstore.index.applied.sequence", indexer, Indexer::appliedThrough)
        .register(o.registry);
    Gauge.builder("docstore.index.checkpoint.sequence", this, s -> s.checkpointed)
        .register(o.registry);
    Gauge.builder("docstore.index.rebuilt", this, s -> s.indexMovedAside == null ? 0 : 1)
        .description(
            "1 if the index was found damaged at open and rebuilt from the queue (the damaged files are in"
                + " index.damaged-*/ of the data directory)")
        .register(o.registry);
    io.micrometer.core.instrument.FunctionCounter.builder(
            "docstore.writes.refused.no.space", this, s -> s.noSpaceRefusals())
        .description(
            "Writes refused because the disk was full (HTTP 507; nothing acknowledged, not sticky)")
        .register(o.registry);
    Gauge.builder("docstore.disk.free", this, DocStore::freeBytes)
        .description("Bytes the data directory's file system still has for this process")
        .baseUnit("bytes")
        .register(o.registry);
    Gauge.builder("docstore.queue.disk", queue, DocQueue::segmentBytes)
        .description("Bytes of the queue's segments on disk now (their blocks)")
        .baseUnit("bytes")
        .register(o.registry);
    Gauge.builder("docstore.queue.live.records", liveRecords, LiveRecords::total)
        .description(
            "Queue records the index points to (current versions); the rest of the queue is garbage"
                + " that space reclamation can give back")
        .register(o.registry);
    Gauge.builder(
            "docstore.queue.space.amplification",
            this,
            s -> ((Number) s.space().get("spaceAmplification")).doubleValue())
        .description(
            "Queue bytes on disk over the bytes of its live records (estimated per segment from its"
                + " live share); 0 when nothing is live")
        .register(o.registry);
    Gauge.builder("docstore.writable", this, s -> s.writeFailure() == null ? 1 : 0)
        .description(
            "1 while writes succeed; 0 after a write failure (reads continue; restart to recover)")
        .register(o.registry);
    StoreMeters.bind(o.registry, this, queue::stats, index::stats);
    if (readOnly) {
      checkpointer = null;
      relocationAppends = null;
      reclamation = null;
      writes = null;
      return;
    }
    relocationAppends = Executors.newSingleThreadExecutor(daemonThread("docstore-gc-append"));
    reclamation =
        new Reclamation(
            new SpaceReclaimer(
                new ReclaimableStore(
                    queue,
                    index,
                    liveRecords,
                    fs,
                    dir,
                    this::appendRelocations,
                    () -> {
                      checkpoint();
                      return checkpointed;
                    }),
                o.gc),
            o.gc,
            o.indexOptions.backgroundNice(),
            o.registry);
    List<io.docstore.queue.SegmentSummary> atOpen = queue.segmentSummaries();
    reclamation.trackFrom(atOpen.get(atOpen.size() - 1).number() + 1);
    writes =
        new StoreWrites(
            writer, groups, maxBodyBytes, defaultTtlMillis, reclamation, indexer, metrics);
    checkpointer = Executors.newSingleThreadScheduledExecutor(daemonThread("docstore-checkpoint"));
    long every = o.checkpointInterval.toMillis();
    checkpointer.scheduleWithFixedDelay(
        this::checkpointQuietly, every, every, TimeUnit.MILLISECONDS);
  }

  /**
   * Appends the space reclamation's records and waits until they are durable and applied, as a
   * write does; a full disk is refused as for writes.
   */
  private long appendRelocations(List<SpaceReclaimer.Relocation> records) throws IOException {
    Future<Long> appended;
    try {
      appended = relocationAppends.submit(() -> appendRelocationsHere(records));
    } catch (java.util.concurrent.RejectedExecutionException e) {
      throw new IOException("the store is closing: relocations are not appended", e);
    }
    try {
      return appended.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while relocations were appended");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      Throwables.throwIfUnchecked(cause);
      throw new IOException(cause);
    }
  }

  /** {@link #appendRelocations} on the thread that appends them. */
  private long appendRelocationsHere(List<SpaceReclaimer.Relocation> records) throws IOException {
    ensureOpen();
    long last = 0;
    long discards = writer.discards();
    ExpiryHorizons horizons = reclamation.horizons();
    for (SpaceReclaimer.Relocation r : records) {
      Appended a = writer.append(r.id(), r.op(), r.acceptedAtMillis(), r.body(), r.rest());
      last = a.sequence();
      java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(r.body());
      if (r.op() == Op.RELOCATED && RecordBody.stores(r.op(), b, 0, r.body().length)) {
        horizons.add(
            Address.segment(a.address()),
            RecordBody.expiresAtMillis(r.op(), b, 0, r.body().length));
      }
    }
    horizons.flush();
    writer.awaitDurable(last, discards);
    indexer.catchUpTo(last, INDEX_WAIT_MILLIS, false);
    return last;
  }

  /** The space reclamation (pause, resume, a pass now, figures); null when opened read-only. */
  public Reclamation reclamation() {
    return reclamation;
  }

  /** Threads named {@code name}, daemons: a store's background work never keeps the JVM up. */
  private static java.util.concurrent.ThreadFactory daemonThread(String name) {
    return new com.google.common.util.concurrent.ThreadFactoryBuilder()
        .setNameFormat(name)
        .setDaemon(true)
        .build();
  }

  /** Counts the live records per segment from {@code index} (one scan of it), and logs it. */
  private static LiveRecords countLive(LsmIndex index, DocQueue queue) throws IOException {
    long t0 = System.nanoTime();
    LiveRecords counted = LiveRecords.scan(index);
    log.info(
        "counted {} live records over {} segments in {} ms",
        counted.total(),
        queue.segmentCount(),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
    return counted;
  }

  /**
   * Where this open moved the index before rebuilding it from the queue (damage found, or asked
   * to), or null.
   */
  public Path indexMovedAside() {
    return indexMovedAside;
  }

  /**
   * What {@link #openRebuildingIndexSkippingDamage} skipped and could not recover, or null (no
   * damage met, or another open).
   */
  public SalvageRebuild.Report skippedDamage() {
    return skippedDamage;
  }

  /**
   * Opens (creating if needed) the store in {@code dir}; re-indexes queue records after the
   * checkpoint.
   */
  public static DocStore open(Path dir, DocStoreOptions options) throws IOException {
    return open(dir, options, false, false, false);
  }

  /**
   * Opens the store after moving its index aside (into {@code index.damaged-<millis>/}), so the
   * index is rebuilt from the queue's first record: the repair for an index table page that {@code
   * docstore verify} or a read found damaged (damage found at open is repaired this way without
   * being asked).
   */
  public static DocStore openRebuildingIndex(Path dir, DocStoreOptions options) throws IOException {
    return open(dir, options, true, false, false);
  }

  /**
   * {@link #openRebuildingIndex}, going on past damaged queue data instead of stopping at it: every
   * record that verifies is indexed, and no document whose newest version was in a damaged stretch
   * reads as an older version ({@link SalvageRebuild}; what was skipped and which IDs could not be
   * recovered: {@link #skippedDamage()}, also kept in {@code index.damaged-<millis>/}{@value
   * #SKIPPED_DAMAGE_REPORT}). The index is checkpointed at the queue's end, so later opens do not
   * read the damage again. The last resort when no peer holds a good copy of the damaged segment.
   *
   * @param acceptStale serve the newest readable version of the documents the old index cannot
   *     vouch for, instead of answering an error for them
   */
  public static DocStore openRebuildingIndexSkippingDamage(
      Path dir, DocStoreOptions options, boolean acceptStale) throws IOException {
    return open(dir, options, true, true, acceptStale);
  }

  /**
   * Opens an existing store for reading without changing anything in its directory: the queue and
   * the index are opened read-only ({@link DocQueue#openReadOnly}, {@link LsmIndex#openReadOnly}),
   * the queue's records past the checkpoint are indexed in memory, no checkpoint is written, and
   * writes are refused. A damaged or untrustworthy index is reported, not repaired. Takes the
   * directory's lock, so it fails while a server has the store open. For the offline {@code get}
   * and {@code stats}.
   */
  public static DocStore openReadOnly(Path dir, DocStoreOptions options) throws IOException {
    if (!options.fileSystem.exists(dir)) {
      throw new java.io.FileNotFoundException("no data directory " + dir);
    }
    DirectoryLock lock = DirectoryLock.acquire(dir);
    try {
      return new DocStore(dir, options, lock, null, null, true);
    } catch (IOException | RuntimeException e) {
      lock.close();
      throw e;
    }
  }

  private static DocStore open(
      Path dir,
      DocStoreOptions options,
      boolean rebuildIndex,
      boolean skipDamage,
      boolean acceptStale)
      throws IOException {
    options.fileSystem.createDirectories(dir);
    DirectoryLock lock = DirectoryLock.acquire(dir);
    try {
      SalvageRebuild.Report skipped = null;
      if (skipDamage) {
        try {
          // Built next to the old index, which stays in place until the new one is whole.
          skipped =
              SalvageRebuild.build(
                  options.fileSystem, dir, options.queueOptions, options.indexOptions, acceptStale);
        } catch (CorruptionException c) {
          throw IndexAside.rebuildStopped(dir, c, true);
        }
      }
      Path aside = null;
      if (rebuildIndex) {
        aside = IndexAside.move(options.fileSystem, dir, System.currentTimeMillis());
        log.warn("index moved aside to {} on request; rebuilding it from the queue", aside);
      }
      try {
        if (skipped != null) {
          SalvageRebuild.install(options.fileSystem, dir, aside, skipped);
        }
        return new DocStore(dir, options, lock, aside, skipped, false);
      } catch (IOException | RuntimeException e) {
        if (aside == null) {
          throw e;
        }
        // A rebuild that cannot read the queue through must not leave less than it found: the
        // index it moved aside goes back, so the store opens as it did before the rebuild.
        IndexAside.putBack(options.fileSystem, dir, aside);
        if (e instanceof CorruptionException c) {
          throw IndexAside.rebuildStopped(dir, c, skipDamage);
        }
        throw e;
      }
    } catch (IOException | RuntimeException e) {
      lock.close();
      throw e;
    }
  }

  @Override
  public List<Written> apply(List<Update> updates) throws IOException {
    return writes().write(updates, null, -1, -1);
  }

  /** One message consumed from the update log: its offset and the update it carries. */
  public record LoggedUpdate(long offset, Update update) {}

  /**
   * Appends updates consumed from partition {@code partition} of the update log, in offset order,
   * as one run: a SOURCE record naming the partition and each record's offset, then the updates'
   * records, with nothing else between them (see {@link SourceKeys}); returns once they are durable
   * and readable, as {@link #apply} does and with its checks.
   *
   * @param nextOffset the offset after the last message consumed, skipped ones (dead letters)
   *     included: an empty list records that skipped messages were consumed
   */
  public List<Written> applyFromLog(int partition, long nextOffset, List<LoggedUpdate> updates)
      throws IOException {
    return applyFromLog(prepareFromLog(partition, nextOffset, updates));
  }

  /**
   * A run of the update log checked and prepared by {@link #prepareFromLog}, for {@link
   * #applyFromLog(LogRun)}.
   */
  public static final class LogRun {
    private final int partition;
    private final long nextOffset;
    private final long[] offsets;
    private final StoreWrites.Prepared prepared;

    private LogRun(int partition, long nextOffset, long[] offsets, StoreWrites.Prepared prepared) {
      this.partition = partition;
      this.nextOffset = nextOffset;
      this.offsets = offsets;
      this.prepared = prepared;
    }
  }

  /**
   * The first half of {@link #applyFromLog(int, long, List)}: checks the run and does the work that
   * needs no lock (projections, record bodies, compression), so that a consumer can prepare the
   * next run while the last one is appended. Nothing is written.
   *
   * @throws IllegalArgumentException for offsets out of order, or an update the store refuses
   */
  public LogRun prepareFromLog(int partition, long nextOffset, List<LoggedUpdate> updates)
      throws IOException {
    SourceKeys.key(partition); // checks the partition
    List<Update> plain = new ArrayList<>(updates.size());
    long[] offsets = new long[updates.size()];
    for (int i = 0; i < offsets.length; i++) {
      LoggedUpdate u = updates.get(i);
      if (u.offset() < 0 || u.offset() >= nextOffset || (i > 0 && u.offset() <= offsets[i - 1])) {
        throw new IllegalArgumentException(
            "log offsets must increase and stay below the next offset " + nextOffset);
      }
      offsets[i] = u.offset();
      plain.add(u.update());
    }
    return new LogRun(partition, nextOffset, offsets, writes().prepare(plain));
  }

  /** The second half: appends a prepared run, as {@link #applyFromLog(int, long, List)} does. */
  public List<Written> applyFromLog(LogRun run) throws IOException {
    return writes().write(run.prepared, run.offsets, run.partition, run.nextOffset);
  }

  /**
   * A run appended by {@link #appendFromLog} whose records may not be durable yet; {@link
   * #completeFromLog} waits until they are.
   */
  public static final class AppendedRun {
    private final StoreWrites.Pending pending;

    private AppendedRun(StoreWrites.Pending pending) {
      this.pending = pending;
    }
  }

  /**
   * {@link #applyFromLog(LogRun)} in two steps, so that a consumer can append the next run while
   * the last one is made durable: appends {@code run}'s records and returns at once. {@code after}
   * is the run appended before it whose completion is not known yet (null if none): if a block of
   * the queue was discarded (a full disk) since that chain of runs began, nothing is appended and
   * this throws, since a later run must never become durable when an earlier one did not.
   *
   * @throws IllegalArgumentException as {@link #applyFromLog(LogRun)}
   */
  public AppendedRun appendFromLog(LogRun run, AppendedRun after) throws IOException {
    StoreWrites w = writes();
    long discardsBefore = after == null ? w.discards() : after.pending.discardsBefore();
    return new AppendedRun(
        w.append(run.prepared, run.offsets, run.partition, run.nextOffset, discardsBefore));
  }

  /**
   * Waits until a run {@link #appendFromLog} appended is durable and readable; throws as {@link
   * #applyFromLog(LogRun)} would, also when a run of its chain lost records to a full disk.
   */
  public List<Written> completeFromLog(AppendedRun run) throws IOException {
    return writes().complete(run.pending);
  }

  /**
   * Turns the queue's LZ4 appends on or off ({@link io.docstore.queue.QueueWriter#lz4Appends}):
   * while on, records go to LZ4 blocks at a fifth of the CPU of the dictionary's per-record zstd,
   * and the space reclamation recompresses nothing; once off, it copies them into blocks of the
   * dictionary. For a shard catching up with a backlog of its update log.
   */
  public void lz4Appends(boolean on) {
    ensureOpen();
    queue.writer().lz4Appends(on);
  }

  /** Whether the queue's LZ4 appends are on. */
  public boolean lz4Appends() {
    return queue.writer().lz4Appends();
  }

  /**
   * Whether this store holds positions in an update log (SOURCE records: it is, or was, a shard fed
   * by Kafka), which a write from anywhere else than the topic would contradict.
   */
  public boolean holdsLogPositions() throws IOException {
    ensureOpen();
    try (io.docstore.index.IndexCursor c = index.scan(SourceKeys.FIRST)) {
      return c.next() && SourceKeys.isSourceKey(c.id());
    }
  }

  /** The partitions of the update log this store holds positions in, ascending. */
  public List<Integer> heldLogPartitions() throws IOException {
    ensureOpen();
    List<Integer> held = new ArrayList<>();
    try (io.docstore.index.IndexCursor c = index.scan(SourceKeys.FIRST)) {
      while (c.next() && SourceKeys.isSourceKey(c.id())) {
        held.add((int) (c.id() - SourceKeys.FIRST));
      }
    }
    return held;
  }

  /** Documents deleted per write while a partition is dropped. */
  private static final int DROP_BATCH = 10_000;

  /**
   * Deletes every document of {@code partition} of an update log of {@code partitions} partitions
   * (Kafka's default partitioner of its ID, {@code KafkaKeys.partitionFor}), then its position, so
   * that {@link #logPosition} says -1 and {@link #heldLogPartitions} no longer lists it: what a
   * shard does once the partition has moved to another shard. The deletes are ordinary DELETE
   * records, so replicas drop the documents too and the space reclamation gives their space back.
   * Idempotent: a drop cut short by a crash is finished by running it again (the position goes
   * last). The caller makes sure nothing of the partition is written meanwhile.
   *
   * @return the documents deleted
   */
  public long dropLogPartition(
      int partition, int partitions, java.util.function.LongConsumer progress) throws IOException {
    SourceKeys.key(partition); // checks the partition
    if (partition >= partitions) {
      throw new IllegalArgumentException(
          "partition " + partition + " of a log of " + partitions + " partitions");
    }
    long dropped = 0;
    List<Update> batch = new ArrayList<>(DROP_BATCH);
    try (io.docstore.index.IndexCursor c = index.scan(0)) {
      while (c.next()) {
        long id = c.id();
        if (GroupKeys.validDocumentId(id, groups.configured())
            && io.docstore.client.KafkaKeys.partitionFor(id, partitions) == partition) {
          batch.add(Update.delete(id));
          if (batch.size() == DROP_BATCH) {
            writes().write(batch, null, -1, -1);
            dropped += batch.size();
            progress.accept(dropped);
            batch.clear();
          }
        }
      }
    }
    writes().write(batch, null, -1, -1);
    dropped += batch.size();
    writes().forgetSource(partition);
    return dropped;
  }

  /** The write path, once checked that this store takes writes. */
  private StoreWrites writes() throws IOException {
    ensureOpen();
    if (readOnly) {
      throw new IOException("the store in " + dir + " was opened read-only");
    }
    return writes;
  }

  /**
   * The offset of the next message to consume from {@code partition} of the update log: where the
   * durable records of the last run consumed from it end (a crash inside a run resumes after the
   * last record that survived); -1 when the store holds nothing from that partition.
   */
  public long logPosition(int partition) throws IOException {
    ensureOpen();
    long written = queue.lastSequence();
    if (!readOnly && indexer.appliedThrough() < written) {
      // A run cut by a full disk leaves its first records (the blocks written before the one that
      // failed) in the queue, unindexed until the next write: make them durable and index them
      // first, as a restart would, so that the position counts them and a retry does not apply
      // them twice.
      writer.sync();
      indexer.catchUpTo(written, INDEX_WAIT_MILLIS, false);
    }
    long address = index.get(SourceKeys.key(partition));
    return address < 0 ? -1 : position(SourceKeys.key(partition), address);
  }

  /**
   * Where the run of the SOURCE record that source key {@code key} maps to ({@code address}) ends
   * in the queue, taking the queue's end as final (see {@link SourceKeys#position}).
   */
  private long position(long key, long address) throws IOException {
    QueueRecord source = load(key, address);
    try (QueueTailer after = queue.tailerAfter(source)) {
      return SourceKeys.position(source, after, true);
    }
  }

  /**
   * At open, once the index holds the whole queue: each partition's visible position is where its
   * newest run ends, as {@link #logPosition} finds it; the indexer keeps them up to date from then
   * on.
   */
  private void seedVisiblePositions() throws IOException {
    try (io.docstore.index.IndexCursor c = index.scan(SourceKeys.FIRST)) {
      while (c.next() && SourceKeys.isSourceKey(c.id())) {
        visible.seed(SourceKeys.partition(c.id()), position(c.id(), c.value()));
      }
    }
  }

  /**
   * How far reads see partition {@code partition} of the update log, now: the offset of the first
   * message whose write a read may not see yet; -1 when nothing of that partition is visible. The
   * read-side counterpart of {@link #logPosition}, cheap enough for every read request: no sync, no
   * indexing, no I/O, no lock (a figure the indexer keeps, see {@link VisiblePositions}); on a
   * read-only store the same.
   *
   * <p>Why a reader may act on it: the position passes a message only once every queue record of
   * that message, and of every message of the partition before it, is in the index and the cache
   * (the indexer applies records in sequence order and moves the position after each batch is in
   * both). So a read that starts after this call returned a position above offset {@code o} sees
   * the write of message {@code o} (a put, a delete) or a newer state of that document: a later
   * message's write, or the expiry of what it wrote. It is never ahead of {@link #logPosition}
   * (which counts records made durable and indexed on the spot); it may be behind it by what is
   * durable but not yet indexed.
   *
   * @throws IllegalArgumentException for a partition a store cannot follow (negative, or from
   *     {@value SourceKeys#MAX_PARTITIONS} up)
   */
  @Override
  public long visibleLogPosition(int partition) throws IOException {
    SourceKeys.key(partition); // checks the partition
    ensureOpen();
    return visible.get(partition);
  }

  /**
   * Whether the store is fed by an update log: opened as a Kafka-mode shard ({@link
   * DocStoreOptions.Builder#fedByLog}), or holding positions in one.
   */
  @Override
  public boolean fedByLog() {
    return fedByLog || !visible.isEmpty();
  }

  @Override
  public Document get(long id) throws IOException {
    ensureOpen();
    checkId(id);
    return reads.get(id);
  }

  @Override
  public long copyIfCached(long id, io.netty.buffer.ByteBuf out) {
    if (closed.get() || !GroupKeys.validDocumentId(id, groups.configured())) {
      return -1;
    }
    return reads.copyIfCached(id, out);
  }

  @Override
  public long copy(long id, io.netty.buffer.ByteBuf out) throws IOException {
    ensureOpen();
    checkId(id);
    return reads.copy(id, out);
  }

  @Override
  public boolean cachesInProcess() {
    return cache.local();
  }

  @Override
  public boolean readsInMemory() {
    return !closed.get() && cache.local() && index.lookupsWarm() && reader.readsWarm();
  }

  @Override
  public Document[] getAll(long[] ids) throws IOException {
    ensureOpen();
    for (long id : ids) {
      checkId(id);
    }
    return reads.getAll(ids);
  }

  @Override
  public FieldGroups groups() {
    return groups;
  }

  @Override
  public Document[] getAll(long[] ids, String group) throws IOException {
    ensureOpen();
    return GroupReads.getAll(groups, groupMeters, ids, group, reads::getAll);
  }

  @Override
  public Projections projections(String group) {
    ensureOpen();
    return GroupReads.projections(groups, groupMeters, group, reads::copyPartIfCached, reads::copy);
  }

  private QueueRecord load(long id, long address) throws IOException {
    QueueRecord r;
    try {
      r = reader.get(address);
    } catch (CorruptionException e) {
      metrics.corruption(); // a record that fails its checksum: every detection is counted
      throw e;
    }
    checkMapping(id, address, r);
    return r;
  }

  /**
   * {@link #load} with the document copied from the reader's buffer to {@code out}; returns the
   * version, and the expiry in {@code expiresAt[0]}.
   */
  private long loadInto(long id, long address, io.netty.buffer.ByteBuf out, long[] expiresAt)
      throws IOException {
    long[] sequence = new long[1];
    int before = out.writerIndex();
    try {
      reader.read(
          address,
          (rid, seq, op, acceptedAt, buf, at, length) -> {
            if (!GroupKeys.matches(groups.configured(), id, rid, op, buf, at, length)) {
              sequence[0] = -1; // checked below, outside the reader's buffer
              return;
            }
            int doc = RecordBody.documentOffset(op, buf, at, length);
            out.writeBytes(buf.duplicate().limit(at + length).position(at + doc));
            expiresAt[0] = RecordBody.expiresAtMillis(op, buf, at, length);
            sequence[0] = RecordBody.version(op, seq, buf, at);
          });
    } catch (CorruptionException e) {
      metrics.corruption();
      out.writerIndex(before);
      throw e;
    }
    if (sequence[0] < 0) {
      QueueRecord r = reader.get(address);
      checkMapping(id, address, r);
    }
    return sequence[0];
  }

  /**
   * The index maps {@code id} to {@code address}; the record there must store a document of that
   * id.
   */
  private void checkMapping(long id, long address, QueueRecord r) throws CorruptionException {
    long recordId = r.id();
    Op op = r.op();
    if (!GroupKeys.matches(
        groups.configured(),
        id,
        recordId,
        op,
        java.nio.ByteBuffer.wrap(r.body()),
        0,
        r.body().length)) {
      metrics.corruption();
      CorruptionException e =
          new CorruptionException(
              dir.resolve("queue"),
              Address.blockOffset(address),
              "index maps id "
                  + id
                  + " to record "
                  + Address.toString(address)
                  + " (segment "
                  + Address.segment(address)
                  + ") but the record there is a "
                  + op
                  + " of id "
                  + recordId);
      log.error("corrupt mapping: {}", e.getMessage());
      throw e;
    }
  }

  /** The highest sequence number written to the queue (not necessarily durable yet). */
  @Override
  public long lastSequence() {
    return queue.lastSequence();
  }

  @Override
  public Replay replay(long after) throws IOException {
    ensureOpen();
    long through = durableSequence();
    QueueTailer tailer = queue.tailer(after + 1);
    return new Replay() {
      @Override
      public Update next() throws IOException {
        QueueRecord r = tailer.poll();
        // Users' writes only: projections, log positions and the space reclamation's records
        // are not updates anyone sent.
        while (r != null
            && r.sequence() <= through
            && ((r.op() != Op.PUT && r.op() != Op.PUT_EXPIRING && r.op() != Op.DELETE)
                || SourceKeys.isSourceKey(r.id()))) {
          r = tailer.poll();
        }
        if (r == null || r.sequence() > through) {
          return null;
        }
        return r.stores()
            ? new Update(r.id(), r.document(), -1, r.expiresAtMillis())
            : Update.delete(r.id());
      }

      @Override
      public void close() {
        tailer.close();
      }
    };
  }

  /**
   * The highest sequence number fsynced in the queue: what the replication manifest may declare, so
   * that a replica never holds a version a power loss could take from the primary. Under sync
   * {@code none} nothing else fsyncs appends promptly, so this fsyncs what was written first (the
   * manifest's interval, 200 ms by default, sets how often: one fsync per interval while writes
   * come). A failed fsync leaves the last durable sequence (and is sticky for writers, as always).
   */
  public long durableSequence() {
    if (!readOnly
        && queue.options().syncPolicy().mode() == io.docstore.io.SyncPolicy.Mode.NONE
        && queue.lastSequence() > queue.durableSequence()) {
      try {
        queue.writer().sync();
      } catch (IOException e) {
        log.warn("fsync for the replication manifest failed: {}", e.toString());
      }
    }
    return queue.durableSequence();
  }

  /** The highest sequence readable through the index. */
  public long appliedThrough() {
    return indexer.appliedThrough();
  }

  /** The sequence recorded in the index checkpoint (re-indexing after a crash starts after it). */
  public long checkpointedThrough() {
    return checkpointed;
  }

  /**
   * Projects every live document onto the configured groups again ({@link Regroup}): after a
   * group's definition changed. Writes may go on meanwhile.
   *
   * @param progress called with the number of documents done so far
   */
  public Regroup.Result regroup(java.util.function.LongConsumer progress) throws IOException {
    ensureOpen();
    if (readOnly || !groups.configured()) {
      throw new IllegalStateException(
          readOnly ? "the store is open read-only" : "no field groups are configured");
    }
    return new Regroup(
            groups,
            maxBodyBytes,
            new Regroup.Store() {
              private long discards = writer.discards();

              @Override
              public io.docstore.index.IndexCursor documents() throws IOException {
                return index.scan(0);
              }

              @Override
              public QueueRecord load(long id, long address) throws IOException {
                return DocStore.this.load(id, address);
              }

              @Override
              public long append(long id, long acceptedAtMillis, byte[] record) throws IOException {
                return writer.append(id, Op.GROUPS, acceptedAtMillis, record).sequence();
              }

              @Override
              public void awaitApplied(long sequence) throws IOException {
                writer.awaitDurable(sequence, discards);
                indexer.catchUpTo(sequence, INDEX_WAIT_MILLIS, false);
                discards = writer.discards();
              }
            })
        .run(progress);
  }

  /** Figures for {@code /stats} and {@code docstore stats}: queue, index and cache statistics. */
  public Map<String, Object> stats() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("lastSequence", queue.lastSequence());
    m.put("durableSequence", queue.durableSequence());
    m.put("indexedSequence", indexer.appliedThrough());
    m.put("checkpointSequence", checkpointed);
    IOException failure = writeFailure();
    m.put("writable", failure == null);
    if (failure != null) {
      m.put("writeError", failure.toString());
    }
    m.put("noSpaceRefusals", noSpaceRefusals());
    String lastNoSpace = writes == null ? null : writes.lastNoSpace();
    if (lastNoSpace != null) {
      m.put("lastNoSpace", lastNoSpace);
    }
    m.put("segments", queue.segmentCount());
    m.put("segmentBytes", queue.segmentBytes());
    m.put("space", space());
    if (groups.configured()) {
      m.put("groups", groupMeters.stats());
    }
    if (reclamation != null) {
      m.put("gc", reclamation.stats());
    }
    m.put("queue", queue.stats());
    m.put("index", index.stats());
    m.put("cache", cache.stats());
    m.put("cacheHitRatio", cache.stats().hitRatio());
    return m;
  }

  /**
   * The queue's garbage, for {@code /stats} and {@code docstore stats}: records and live records
   * over every segment, the space amplification (stored bytes over live stored bytes, estimated per
   * segment from its live share) and the sealed segments with the most garbage.
   */
  public Map<String, Object> space() {
    return liveRecords.report(queue.segmentSummaries());
  }

  /** Usable bytes of the data directory's file system (-1 if it cannot be read). */
  private double freeBytes() {
    try {
      return fs.usableSpace(dir);
    } catch (IOException e) {
      return -1;
    }
  }

  /** Live records per queue segment. */
  public LiveRecords liveRecords() {
    return liveRecords;
  }

  /** The queue's segments now, oldest first. */
  public List<io.docstore.queue.SegmentSummary> queueSegments() {
    return queue.segmentSummaries();
  }

  /**
   * Syncs the index and publishes the checkpoint. Ordering: read the applied sequence S first, then
   * sync the index (which covers every put made before S was read), then publish S.
   */
  public void checkpoint() throws IOException {
    synchronized (checkpointLock) {
      long through = indexer.appliedThrough();
      if (through == checkpointed) {
        return;
      }
      long t0 = System.nanoTime();
      index.sync();
      KillPoints.reach("docstore.checkpoint-synced-before-publish");
      IndexCheckpoint.publish(fs, dir, through, System.currentTimeMillis());
      checkpointed = through;
      metrics.checkpointed(System.nanoTime() - t0);
    }
  }

  private void checkpointQuietly() {
    try {
      checkpoint();
    } catch (IOException | RuntimeException e) {
      if (NoSpaceException.isNoSpace(e)) {
        long now = System.nanoTime();
        if (now - checkpointNoSpaceLoggedNanos >= TimeUnit.SECONDS.toNanos(30)) {
          checkpointNoSpaceLoggedNanos = now;
          log.warn(
              "index checkpoint failed for lack of disk space (retried every interval, logged every 30 s): {}",
              e.toString());
        }
        return;
      }
      log.warn(
          "index checkpoint failed (will retry; a crash now re-indexes more of the queue): {}",
          e.toString());
    }
  }

  /**
   * Stops the checkpointer, syncs the queue and the index, publishes a final checkpoint, closes.
   */
  @Override
  public void close() throws IOException {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    if (readOnly) {
      closeAll(null);
      return;
    }
    IOException failure = null;
    reclamation.close();
    relocationAppends.shutdown();
    checkpointer.shutdown();
    try {
      relocationAppends.awaitTermination(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      checkpointer.awaitTermination(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      writer.sync();
      checkpoint();
    } catch (IOException e) {
      failure = e;
    } catch (RuntimeException e) {
      failure = new IOException("final sync or checkpoint failed", e);
    }
    closeAll(failure);
  }

  /** Closes the indexer, the index and the queue, then the lock; throws the first failure. */
  private void closeAll(IOException failure) throws IOException {
    try {
      for (Closeable c : new Closeable[] {indexer, index, queue}) {
        try {
          c.close();
        } catch (IOException | RuntimeException e) {
          if (failure == null) {
            failure = e instanceof IOException io ? io : new IOException(e);
          } else {
            failure.addSuppressed(e);
          }
        }
      }
    } finally {
      lock.close();
    }
    if (failure != null) {
      throw failure;
    }
  }

  private IOException writeFailure() {
    return writes == null ? null : writes.failure();
  }

  private long noSpaceRefusals() {
    return writes == null ? 0 : writes.noSpaceRefusals();
  }

  private void ensureOpen() {
    if (closed.get()) {
      throw new IllegalStateException("store is closed");
    }
  }

  private void checkId(long id) {
    GroupKeys.checkDocumentId(id, groups.configured());
  }

  private static void closeQuietly(Closeable c) {
    if (c != null) {
      try {
        c.close();
      } catch (IOException e) {
        log.warn("closing after a failed open: {}", e.toString());
      }
    }
  }
}
