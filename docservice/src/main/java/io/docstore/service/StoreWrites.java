package io.docstore.service;

import io.docstore.io.KillPoints;
import io.docstore.io.NoSpaceException;
import io.docstore.queue.Appended;
import io.docstore.queue.Op;
import io.docstore.queue.QueueWriter;
import io.docstore.queue.RecordBody;
import io.docstore.queue.block.StoredBody;
import io.docstore.queue.format.Address;
import io.docstore.service.gc.ExpiryHorizons;
import io.docstore.service.gc.Reclamation;
import io.docstore.service.groups.FieldGroups;
import io.docstore.service.store.GroupKeys;
import io.docstore.service.store.Indexer;
import io.docstore.service.store.SourceKeys;
import io.docstore.service.store.StoreMetrics;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's write path: checks and projects each update, appends its records (with its
 * projections, or as a run headed by a SOURCE record for updates from the log), waits until they
 * are durable and indexed, and keeps what writes failed with (the first failure, sticky; refusals
 * for a full disk, not sticky). One per writable {@link DocStore}; thread-safe (appends go through
 * the queue writer's lock).
 */
final class StoreWrites {

  private static final Logger log = LoggerFactory.getLogger(StoreWrites.class);

  /** How long a write waits for the indexer to make it readable. */
  private static final long INDEX_WAIT_MILLIS = 30_000;

  private final QueueWriter writer;
  private final FieldGroups groups;
  private final int maxBodyBytes;
  private final long defaultTtlMillis;
  private final Reclamation reclamation;
  private final Indexer indexer;
  private final StoreMetrics metrics;

  /** The first write failure (fsync, queue damage); the queue and index refuse further writes. */
  private volatile IOException writeFailure;

  /** Writes refused for lack of disk space (not sticky: the next write retries). */
  private final AtomicLong noSpaceRefusals = new AtomicLong();

  private volatile long noSpaceLoggedNanos;
  private volatile String lastNoSpace;

  StoreWrites(
      QueueWriter writer,
      FieldGroups groups,
      int maxBodyBytes,
      long defaultTtlMillis,
      Reclamation reclamation,
      Indexer indexer,
      StoreMetrics metrics) {
    this.writer = writer;
    this.groups = groups;
    this.maxBodyBytes = maxBodyBytes;
    this.defaultTtlMillis = defaultTtlMillis;
    this.reclamation = reclamation;
    this.indexer = indexer;
    this.metrics = metrics;
  }

  /** The first write failure, or null while writes succeed. */
  IOException failure() {
    return writeFailure;
  }

  long noSpaceRefusals() {
    return noSpaceRefusals.get();
  }

  /** The message of the last refusal for lack of space, or null. */
  String lastNoSpace() {
    return lastNoSpace;
  }

  /**
   * Updates checked and made ready to append ({@link #prepare}): their projections, expiries,
   * record bodies and bodies compressed ahead, as of {@code now} (their records' accepted time).
   */
  static final class Prepared {
    final List<Update> updates;
    final byte[][][] projected;
    final Records records;
    final long now;

    private Prepared(List<Update> updates, byte[][][] projected, Records records, long now) {
      this.updates = updates;
      this.projected = projected;
      this.records = records;
      this.now = now;
    }
  }

  /**
   * Checks {@code updates} (IDs, sizes, projections) and does the work of their write that needs no
   * lock, compressing their bodies ahead included; the caller may do it on another thread than the
   * {@link #write} that follows, and while an earlier write is under way.
   *
   * @throws IllegalArgumentException for an update the store refuses (nothing is written)
   */
  Prepared prepare(List<Update> updates) {
    byte[][][] projected = groups.configured() ? new byte[updates.size()][][] : null;
    int at = 0;
    for (Update u : updates) {
      GroupKeys.checkDocumentId(u.id(), groups.configured());
      if (projected != null && !u.isDelete()) {
        projected[at] = groups.projectForWrite(u.id(), u.body(), maxBodyBytes);
      }
      at++;
      if (!u.isDelete() && u.body().length > maxBodyBytes) {
        throw new IllegalArgumentException(
            "document "
                + u.id()
                + " is "
                + u.body().length
                + " bytes, over the limit of "
                + maxBodyBytes);
      }
    }
    long now = System.currentTimeMillis();
    return new Prepared(updates, projected, records(updates, now), now);
  }

  /**
   * {@link DocStore#apply}, or with {@code offsets} (one per update) a run from the update log's
   * {@code partition} that a SOURCE record heads ({@link DocStore#applyFromLog}).
   */
  List<Written> write(List<Update> updates, long[] offsets, int partition, long nextOffset)
      throws IOException {
    return write(prepare(updates), offsets, partition, nextOffset);
  }

  /** {@link #write(List, long[], int, long)} of updates {@link #prepare}d already. */
  List<Written> write(Prepared p, long[] offsets, int partition, long nextOffset)
      throws IOException {
    if (p.updates.isEmpty() && offsets == null) {
      return List.of();
    }
    return complete(append(p, offsets, partition, nextOffset, writer.discards()));
  }

  /**
   * Records appended by {@link #append} that {@link #complete} waits for: the last one's sequence,
   * and the queue's discard count its appends were checked against.
   */
  static final class Pending {
    private final Prepared prepared;
    private final List<Written> out;
    private final long last;
    private final long discardsBefore;
    private final long startNanos;

    private Pending(
        Prepared prepared, List<Written> out, long last, long discardsBefore, long startNanos) {
      this.prepared = prepared;
      this.out = out;
      this.last = last;
      this.discardsBefore = discardsBefore;
      this.startNanos = startNanos;
    }

    long discardsBefore() {
      return discardsBefore;
    }
  }

  /**
   * The queue's count of discarded blocks, to pass to {@link #append} as {@code discardsBefore}.
   */
  long discards() {
    return writer.discards();
  }

  /**
   * The first half of {@link #write}: appends the records of {@code p} and returns without waiting
   * for them to be durable. Refuses to append anything (as {@link NoSpaceException}) when the queue
   * discarded a block since it counted {@code discardsBefore}: a run appended after an earlier one
   * lost records to a full disk could otherwise become durable while the earlier run is not, and
   * the SOURCE record it carries would then say the lost messages were applied.
   */
  Pending append(Prepared p, long[] offsets, int partition, long nextOffset, long discardsBefore)
      throws IOException {
    long t0 = System.nanoTime();
    List<Written> out = new ArrayList<>(p.updates.size());
    ExpiryHorizons horizons = reclamation.horizons();
    try {
      long last;
      if (offsets == null) {
        last = appendAll(p, 0, p.updates.size(), horizons, out);
      } else {
        last =
            writer.appendTogether(
                () -> {
                  if (writer.discards() != discardsBefore) {
                    throw new NoSpaceException(
                        "No space left on device: an earlier run's block was discarded;"
                            + " this run is not appended");
                  }
                  return appendRun(p, offsets, partition, nextOffset, horizons, out);
                });
      }
      horizons.flush();
      return new Pending(p, out, last, discardsBefore, t0);
    } catch (IOException e) {
      throw failed(e);
    }
  }

  /**
   * The second half of {@link #write}: waits until the records {@link #append} appended are durable
   * and indexed; fails if a block was discarded since their {@code discardsBefore}.
   */
  List<Written> complete(Pending pending) throws IOException {
    try {
      writer.awaitDurable(pending.last, pending.discardsBefore);
      KillPoints.reach("docstore.durable-before-indexed");
      indexer.catchUpTo(pending.last, INDEX_WAIT_MILLIS, true);
    } catch (IOException e) {
      throw failed(e);
    }
    long readable = System.currentTimeMillis();
    int puts = 0;
    List<Update> updates = pending.prepared.updates;
    for (Update u : updates) {
      if (u.isDelete()) {
        continue;
      }
      puts++;
      if (u.discoveredAtMillis() >= 0) {
        metrics.recordDiscoveredToReadable(readable - u.discoveredAtMillis());
      }
    }
    metrics.written(puts, updates.size() - puts, System.nanoTime() - pending.startNanos);
    return pending.out;
  }

  /** Appends records and returns the last one's sequence. */
  @FunctionalInterface
  private interface Appends {
    long append() throws IOException;
  }

  /** Runs {@code appends}, then waits until its records are durable and indexed. */
  private void durablyIndexed(Appends appends) throws IOException {
    long discards = writer.discards();
    try {
      long last = appends.append();
      writer.awaitDurable(last, discards);
      KillPoints.reach("docstore.durable-before-indexed");
      indexer.catchUpTo(last, INDEX_WAIT_MILLIS, true);
    } catch (IOException e) {
      throw failed(e);
    }
  }

  /**
   * Classifies a write's failure and returns what to throw: a full disk refuses this write only;
   * anything else stops writes for good.
   */
  private IOException failed(IOException e) {
    if (NoSpaceException.isNoSpace(e)) {
      refusedForSpace(e);
      return NoSpaceException.classify(e);
    }
    if (writeFailure == null) {
      writeFailure = e;
      log.error(
          "writes are failing, the store serves reads only until it is restarted: {}",
          e.toString());
    }
    return e;
  }

  /**
   * Deletes {@code partition}'s position in the update log (a DELETE of its source key, durable and
   * indexed on return): the store no longer holds that partition ({@link
   * DocStore#dropLogPartition}).
   */
  void forgetSource(int partition) throws IOException {
    long now = System.currentTimeMillis();
    durablyIndexed(
        () -> writer.append(SourceKeys.key(partition), Op.DELETE, now, new byte[0]).sequence());
  }

  /**
   * Each update's expiry and record body (null for a delete), and the bodies compressed ahead of
   * the append, outside the writer's lock ({@link QueueWriter#precompress}).
   */
  private record Records(long[] expires, List<byte[]> bodies, StoredBody[] stored) {}

  private Records records(List<Update> updates, long now) {
    long[] expires = new long[updates.size()];
    List<byte[]> bodies = new ArrayList<>(updates.size());
    int i = 0;
    for (Update u : updates) {
      long e =
          u.expiresAtMillis() != 0 || defaultTtlMillis <= 0
              ? u.expiresAtMillis()
              : now + defaultTtlMillis;
      expires[i++] = e;
      bodies.add(u.isDelete() ? null : e == 0 ? u.body() : RecordBody.expiring(e, u.body()));
    }
    return new Records(expires, bodies, writer.precompress(bodies));
  }

  /**
   * Appends, with the writer's lock held, a run from the update log headed by SOURCE records: one
   * per {@link QueueWriter#maxSourceEntries} records, so that a long run fits the body limit (each
   * a run of its own, whose next offset is where the next one starts); returns the last sequence.
   */
  private long appendRun(
      Prepared p,
      long[] offsets,
      int partition,
      long nextOffset,
      ExpiryHorizons horizons,
      List<Written> out)
      throws IOException {
    int n = p.updates.size();
    int perSource =
        Math.max(1, QueueWriter.maxSourceEntries(maxBodyBytes) / (p.projected == null ? 1 : 2));
    long last = 0;
    int from = 0;
    do {
      int to = Math.min(n, from + perSource);
      long next = to < n ? offsets[to] : nextOffset;
      byte[] source = sourceRecord(p, offsets, from, to, partition, next);
      last = writer.append(SourceKeys.key(partition), Op.SOURCE, p.now, source).sequence();
      last = Math.max(last, appendAll(p, from, to, horizons, out));
      from = to;
    } while (from < n);
    return last;
  }

  /**
   * Appends the records of updates {@code from} to {@code to} of {@code p} (projections first);
   * returns the last sequence.
   */
  private long appendAll(Prepared p, int from, int to, ExpiryHorizons horizons, List<Written> out)
      throws IOException {
    Records records = p.records;
    byte[][][] projected = p.projected;
    long now = p.now;
    long last = 0;
    for (int i = from; i < to; i++) {
      Update u = p.updates.get(i);
      long expires = records.expires()[i];
      byte[] body = records.bodies().get(i);
      StoredBody stored = records.stored()[i];
      byte[][] projections = projected == null ? null : projected[i];
      Appended a;
      if (u.isDelete()) {
        a = writer.append(u.id(), Op.DELETE, now, new byte[0]);
      } else {
        Op op = expires == 0 ? Op.PUT : Op.PUT_EXPIRING;
        a =
            projections == null
                ? writer.append(u.id(), op, now, body, stored)
                : writer
                    .appendWithGroups(
                        u.id(), now, groups.record(-1, expires, projections), op, body, stored)[0];
      }
      out.add(new Written(u.id(), a.sequence()));
      last = Math.max(last, a.sequence());
      if (!u.isDelete()) {
        horizons.add(Address.segment(a.address()), expires);
      }
    }
    return last;
  }

  /**
   * The SOURCE record of updates {@code from} to {@code to} of a run: each update's records (its
   * projections' too) with the offset of its message.
   */
  private static byte[] sourceRecord(
      Prepared p, long[] offsets, int from, int to, int partition, long nextOffset) {
    byte[][][] projected = p.projected;
    int records = 0;
    for (int i = from; i < to; i++) {
      records += projected != null && projected[i] != null ? 2 : 1;
    }
    long[] ids = new long[records];
    long[] recordOffsets = new long[records];
    int r = 0;
    for (int i = from; i < to; i++) {
      int n = projected != null && projected[i] != null ? 2 : 1;
      for (int k = 0; k < n; k++) {
        ids[r] = p.updates.get(i).id();
        recordOffsets[r++] = offsets[i];
      }
    }
    return RecordBody.source(partition, nextOffset, ids, recordOffsets);
  }

  /**
   * A write refused for lack of space: not sticky (the queue cut its file back, the indexer keeps
   * its batch), so the next write retries. Logged once, then at most every 30 s while it lasts.
   */
  private void refusedForSpace(IOException e) {
    long n = noSpaceRefusals.incrementAndGet();
    lastNoSpace = e.getMessage();
    long now = System.nanoTime();
    if (n == 1 || now - noSpaceLoggedNanos >= TimeUnit.SECONDS.toNanos(30)) {
      noSpaceLoggedNanos = now;
      log.warn(
          "disk full: write refused, nothing acknowledged ({} refused so far); reads continue and writes resume "
              + "once space is freed: {}",
          n,
          e.toString());
    }
  }
}
