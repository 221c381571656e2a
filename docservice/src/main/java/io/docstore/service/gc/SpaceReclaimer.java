package io.docstore.service.gc;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;
import io.docstore.io.KillPoints;
import io.docstore.queue.Op;
import io.docstore.queue.QueueRecord;
import io.docstore.queue.QueueTailer;
import io.docstore.queue.RecordBody;
import io.docstore.queue.RecordHeaderScan;
import io.docstore.queue.SegmentSummary;
import io.docstore.queue.block.StoredBody;
import io.docstore.service.store.GroupKeys;
import io.docstore.service.store.SourceKeys;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The queue's garbage collector (docs/design/space-reclamation.md). One pass picks sealed segments
 * by cost-benefit, as the log-structured file system does ({@code (1 - u) * age / (1 + u)}, u the
 * live share), until the space amplification is at or below the target; for each victim:
 *
 * <ol>
 *   <li>scans it and appends, through the store's writer, a RELOCATED copy of each record the index
 *       still points at (a DROPPED record instead if it has expired), and of each delete that must
 *       stay because an older version of its ID may still be in another segment; waits until they
 *       are durable and applied (compare-and-set) — kill point {@code gc.relocated};
 *   <li>checkpoints the index past them — {@code gc.checkpointed};
 *   <li>replaces the victim by its hollow form — {@code gc.hollowed}.
 * </ol>
 *
 * A crash anywhere leaves the victim whole or hollow; relocated copies of a victim that stayed are
 * garbage the next pass finds. Not thread-safe: one pass at a time (the background thread, or
 * {@code docstore gc} offline).
 */
public final class SpaceReclaimer {

  private static final Logger log = LoggerFactory.getLogger(SpaceReclaimer.class);

  /** What the reclaimer needs of the store. */
  public interface Store {
    /** The queue's segments now, oldest first. */
    List<SegmentSummary> segments();

    /** Whether segment {@code number} is hollow already. */
    boolean reclaimed(long number);

    /** Live records (index entries) pointing into segment {@code number}. */
    long liveRecords(long number);

    /** The index's value for {@code id}: an address, or negative when absent or deleted. */
    long lookup(long id) throws IOException;

    /** A tailer from {@code sequence}. */
    QueueTailer tailer(long sequence) throws IOException;

    /** The records of segment {@code number} by their headers alone. */
    RecordHeaderScan scanHeaders(long number);

    /** The record at {@code address}, body and all. */
    QueueRecord read(long address) throws IOException;

    /**
     * Appends the records (RELOCATED or DROPPED), waits until they are durable and applied to the
     * index; returns the last one's sequence.
     */
    long appendAndApply(List<Relocation> records) throws IOException;

    /** Syncs the index and publishes its checkpoint; returns the checkpointed sequence. */
    long checkpoint() throws IOException;

    /** Replaces sealed segment {@code number} by its hollow form. */
    void reclaim(long number) throws IOException;

    /** Usable bytes of the store's file system. */
    long freeBytes() throws IOException;

    /**
     * Bytes of segment {@code number}'s blocks that are not compressed with its dictionary although
     * it has one ({@link io.docstore.queue.DocQueue#wholeBlockBytesAfterDictionary}): -1 while not
     * known, unless {@code scan} (then its block headers are read once).
     */
    long wholeBlockBytes(long number, boolean scan) throws IOException;

    /** Whether the store appends LZ4 blocks now (catching up): nothing is recompressed then. */
    boolean lz4Appends();
  }

  /**
   * The share of an LZ4 block's bytes that the same records take less in blocks of the queue's
   * dictionary: job documents of about 1 KB store 2.1x smaller than raw in LZ4 blocks and 3.9x with
   * the dictionary (docs/formats/segment.md), so 1 - 2.1 / 3.9.
   */
  static final double RECOMPRESSION_SAVING = 0.46;

  /**
   * One record to append: its ID, kind, the original's acceptance time and its body; for a copy of
   * a record's body, that body as the original's block stores it (copied as it is, not compressed
   * again), else null.
   */
  public record Relocation(long id, Op op, long acceptedAtMillis, byte[] body, StoredBody rest) {
    Relocation(long id, Op op, long acceptedAtMillis, byte[] body) {
      this(id, op, acceptedAtMillis, body, null);
    }
  }

  /** What one pass did. */
  public record Pass(
      int segments, long recordsRelocated, long bytesRelocated, long bytesReclaimed, String stop) {}

  private final Store store;
  private final GcOptions options;
  private final Map<Long, BloomFilter<Long>> idsBySegment = new HashMap<>();

  /**
   * Deletes kept by relocation, per segment they were written to (so they are not garbage); read by
   * {@link #spaceAmplification} from other threads.
   */
  private final Map<Long, Long> keptDeletes = new java.util.concurrent.ConcurrentHashMap<>();

  final AtomicLong bytesReclaimed = new AtomicLong();
  final AtomicLong bytesRelocated = new AtomicLong();
  final AtomicLong recordsRelocated = new AtomicLong();
  final AtomicLong segmentsReclaimed = new AtomicLong();
  private volatile boolean active;
  private volatile boolean stopping;

  /**
   * Per segment, the latest expiry of its records ({@link Long#MAX_VALUE} once one never expires):
   * past it, every version in the segment has expired and the segment is all garbage but the
   * tombstones it must keep. Known for segments written since open ({@link #written}) and for
   * segments scanned once ({@link #facts}); unknown for the others until scanned.
   */
  private final Map<Long, Long> horizons = new java.util.concurrent.ConcurrentHashMap<>();

  /** Segments at or after this one were written entirely since open: their horizon is known. */
  private volatile long trackedFrom = Long.MAX_VALUE;

  /** Sealed segments of unknown horizon scanned per pass (bounds the reads one pass adds). */
  private static final int SCANS_PER_PASS = 4;

  public SpaceReclaimer(Store store, GcOptions options) {
    this.store = store;
    this.options = options;
  }

  /** The store it works on. */
  Store store() {
    return store;
  }

  /** Bytes of segments reclaimed so far (their blocks; the hollow files are about 100 bytes). */
  public long bytesReclaimed() {
    return bytesReclaimed.get();
  }

  /** Stored bytes of the records relocated so far (what the reclamation wrote). */
  public long bytesRelocated() {
    return bytesRelocated.get();
  }

  public long recordsRelocated() {
    return recordsRelocated.get();
  }

  public long segmentsReclaimed() {
    return segmentsReclaimed.get();
  }

  /**
   * Starts tracking the expiries written from segment {@code firstNew} on (the segment after the
   * one active at open: the records of older ones were written before and are scanned when needed).
   */
  public void trackFrom(long firstNew) {
    trackedFrom = firstNew;
  }

  /**
   * A record written to {@code segment} with expiry {@code expiresAtMillis} ({@link
   * RecordBody#NEVER}: it never expires); called by the writer for each segment of a batch.
   */
  public void written(long segment, long expiresAtMillis) {
    long h = expiresAtMillis == RecordBody.NEVER ? Long.MAX_VALUE : expiresAtMillis;
    horizons.merge(segment, h, Math::max);
  }

  /**
   * Makes a running pass stop at its next batch of relocations (the victim in progress stays whole;
   * what it relocated already is garbage for a later pass), and later passes stop at once.
   */
  public void stop() {
    stopping = true;
  }

  /** Whether a pass is running. */
  public boolean active() {
    return active;
  }

  /**
   * The space amplification now: block bytes of every segment over their estimated live bytes (each
   * segment's bytes times its live share, kept deletes counted live); 1 for an empty queue.
   */
  public double spaceAmplification() {
    long stored = 0;
    double live = 0;
    boolean recompress = !store.lz4Appends();
    for (SegmentSummary s : store.segments()) {
      stored += s.blockBytes();
      live += s.blockBytes() * keptShare(s, liveShare(s), recompress);
    }
    return live <= 0 ? (stored == 0 ? 1 : Double.POSITIVE_INFINITY) : stored / live;
  }

  /**
   * The share of segment {@code s}'s bytes that its live records would take once relocated: its
   * live share {@code u}, less what blocks not compressed with the queue's dictionary would save in
   * blocks of it ({@link #RECOMPRESSION_SAVING}) when {@code recompress}.
   */
  private double keptShare(SegmentSummary s, double u, boolean recompress) {
    long whole = recompress ? knownWholeBlockBytes(s) : 0;
    return whole == 0 || s.blockBytes() == 0
        ? u
        : u * (1 - RECOMPRESSION_SAVING * Math.min(1, (double) whole / s.blockBytes()));
  }

  /**
   * Bytes of segment {@code s}'s blocks outside its dictionary's as known now, without reading: 0
   * when none, not known yet, or the segment is gone meanwhile.
   */
  private long knownWholeBlockBytes(SegmentSummary s) {
    try {
      return Math.max(0, store.wholeBlockBytes(s.number(), false));
    } catch (IOException | IllegalArgumentException e) {
      return 0; // gone meanwhile (hollowed, deleted): nothing to recompress there
    }
  }

  /**
   * Bytes of LZ4 blocks (LZ4 appends) in segments that have a dictionary, known so far (a segment
   * written before the store opened counts once a pass has read its headers): what recompression
   * has left to do.
   */
  public long lz4Bytes() {
    long bytes = 0;
    for (SegmentSummary s : store.segments()) {
      bytes += knownWholeBlockBytes(s);
    }
    return bytes;
  }

  private double liveShare(SegmentSummary s) {
    long records = s.records();
    if (records == 0) {
      return 1;
    }
    long kept = keptDeletes.getOrDefault(s.number(), 0L);
    Long horizon = horizons.get(s.number());
    if (horizon != null
        && (s.number() >= trackedFrom || idsBySegment.containsKey(s.number()))
        && horizon <= System.currentTimeMillis()) {
      return Math.min(1, (double) kept / records); // every version in it has expired
    }
    long live = store.liveRecords(s.number()) + kept;
    return Math.min(1, (double) live / records);
  }

  /**
   * Runs one pass: reclaims segments until the space amplification is at or below {@code target},
   * no segment qualifies, free space is below the reserve, or {@code budget} bytes were relocated
   * (Long.MAX_VALUE: no budget).
   */
  public Pass pass(double target, long budget) throws IOException {
    active = true;
    try {
      learnHorizons();
      learnWholeBlocks(SCANS_PER_PASS);
      int done = 0;
      long relocatedRecords = 0;
      long relocatedBytes = 0;
      long reclaimed = 0;
      String stop;
      while (true) {
        if (stopping) {
          stop = "the store is closing";
          break;
        }
        // At or below the target, only segments worth recompressing are taken: blocks the queue
        // wrote without its dictionary (a shard catching up) get it, whatever the target.
        boolean recompressOnly = spaceAmplification() <= target;
        if (store.freeBytes() < options.reserveBytes()) {
          stop = "free space below the reserve of " + options.reserveBytes() + " bytes";
          break;
        }
        if (relocatedBytes >= budget) {
          stop = "relocation budget of " + budget + " bytes used";
          break;
        }
        SegmentSummary victim = pickVictim(recompressOnly);
        if (victim == null) {
          stop =
              recompressOnly
                  ? "space amplification at or below the target " + target
                  : "no sealed segment below the checkpoint has garbage to reclaim";
          break;
        }
        long[] moved = reclaim(victim);
        done++;
        relocatedRecords += moved[0];
        relocatedBytes += moved[1];
        reclaimed += victim.blockBytes();
      }
      return new Pass(done, relocatedRecords, relocatedBytes, reclaimed, stop);
    } finally {
      active = false;
    }
  }

  /**
   * Reads the block headers of up to {@code max} sealed segments, oldest first, whose bytes outside
   * blocks of the dictionary are not known yet (written before the store opened; each is read once:
   * it never changes). A pass reads {@link #SCANS_PER_PASS}; {@code docstore gc} all.
   */
  void learnWholeBlocks(int max) throws IOException {
    int scans = 0;
    for (SegmentSummary s : store.segments()) {
      if (scans >= max) {
        return;
      }
      if (s.sealed()
          && !store.reclaimed(s.number())
          && store.wholeBlockBytes(s.number(), false) < 0) {
        store.wholeBlockBytes(s.number(), true);
        scans++;
      }
    }
  }

  /**
   * Scans up to {@link #SCANS_PER_PASS} sealed segments written before the store opened whose
   * expiry horizon is not known yet, oldest first (each is scanned once: it never changes).
   */
  private void learnHorizons() throws IOException {
    int scans = 0;
    for (SegmentSummary s : store.segments()) {
      if (scans >= SCANS_PER_PASS || s.number() >= trackedFrom) {
        return;
      }
      if (s.sealed() && !store.reclaimed(s.number()) && !idsBySegment.containsKey(s.number())) {
        ids(s); // learns its expiry horizon too
        scans++;
      }
    }
  }

  /**
   * The sealed segment with the best cost-benefit, or null: only segments entirely at or below the
   * checkpoint (re-indexing after a crash never reads a victim), never the newest two (the active
   * one and the one relocations are going to), with at least {@link GcOptions#minGarbage} garbage
   * (counting what its blocks outside the dictionary would save in blocks of it); if {@code
   * recompressOnly}, only segments with such blocks.
   */
  SegmentSummary pickVictim(boolean recompressOnly) throws IOException {
    List<SegmentSummary> segments = store.segments();
    long checkpoint = store.checkpoint();
    SegmentSummary best = null;
    double bestScore = 0;
    boolean recompress = !store.lz4Appends();
    for (int i = 0; i < segments.size() - 2; i++) {
      SegmentSummary s = segments.get(i);
      if (!candidate(s, checkpoint)) {
        continue;
      }
      double live = liveShare(s);
      double u = keptShare(s, live, recompress);
      if (1 - u < options.minGarbage()
          || s.blockBytes() == 0
          || (recompressOnly && (!recompress || u >= live))) {
        continue;
      }
      // Age: how far back in the queue the segment lies, as a share of it (a proxy for time since
      // it was written that needs no clock per segment).
      double age = 1 + (double) (segments.size() - i) / segments.size();
      double score = (1 - u) * age / (1 + u);
      if (score > bestScore) {
        bestScore = score;
        best = s;
      }
    }
    return best;
  }

  /**
   * Reclaims sealed segment {@code number} now, whatever its garbage (tests: a chosen order of
   * victims); false if it is not a candidate (active, newest two, past the checkpoint, hollow).
   */
  boolean reclaimSegment(long number) throws IOException {
    List<SegmentSummary> segments = store.segments();
    long checkpoint = store.checkpoint();
    for (int i = 0; i < segments.size() - 2; i++) {
      SegmentSummary s = segments.get(i);
      if (s.number() == number && candidate(s, checkpoint)) {
        reclaim(s);
        return true;
      }
    }
    return false;
  }

  /**
   * Whether {@code s} (not one of the newest two: the callers skip those) may be reclaimed: sealed,
   * entirely at or below the index checkpoint, not hollow already.
   */
  private boolean candidate(SegmentSummary s, long checkpoint) {
    return s.sealed() && s.lastSequence() <= checkpoint && !store.reclaimed(s.number());
  }

  /** Relocates what segment {@code victim} must keep, then hollows it: {records, bytes} moved. */
  private long[] reclaim(SegmentSummary victim) throws IOException {
    long liveBefore = store.liveRecords(victim.number());
    List<Relocation> out = new ArrayList<>();
    long bytes = 0;
    int keptDeletesNow = 0;
    long now = System.currentTimeMillis();
    RecordHeaderScan scan = store.scanHeaders(victim.number());
    while (scan.next()) {
      if (scan.sequence() > victim.lastSequence()) {
        break;
      }
      long current = store.lookup(scan.id());
      Op op = scan.op();
      boolean liveGroups =
          (op == Op.GROUPS || op == Op.RELOCATED)
              && scan.id() <= GroupKeys.MAX_DOCUMENT_ID
              && store.lookup(GroupKeys.key(scan.id())) == scan.address();
      if (op == Op.GROUPS ? !liveGroups : !liveGroups && garbage(op, scan.address(), current)) {
        continue; // decided by the header: its body is never read
      }
      Relocation keep =
          keep(store.read(scan.address()), scan.storedRest(), current, victim.number(), now);
      if (keep != null) {
        out.add(keep);
        bytes += scan.storedLength();
        Op kept =
            RecordBody.originalOp(keep.op(), ByteBuffer.wrap(keep.body()), 0, keep.body().length);
        if (kept == Op.DROPPED || kept == Op.DELETE) {
          keptDeletesNow++;
        }
      }
    }
    if (!out.isEmpty()) {
      for (int from = 0; from < out.size(); from += options.batch()) {
        if (stopping) {
          throw new IOException(
              "the store is closing: segment " + victim.number() + " stays whole for a later pass");
        }
        store.appendAndApply(out.subList(from, Math.min(out.size(), from + options.batch())));
      }
      List<SegmentSummary> after = store.segments();
      long head = after.get(after.size() - 1).number();
      keptDeletes.merge(head, (long) keptDeletesNow, Long::sum);
    }
    KillPoints.reach("gc.relocated");
    store.checkpoint();
    KillPoints.reach("gc.checkpointed");
    store.reclaim(victim.number());
    KillPoints.reach("gc.hollowed");
    idsBySegment.remove(victim.number());
    keptDeletes.remove(victim.number());
    horizons.remove(victim.number());
    recordsRelocated.addAndGet(out.size());
    bytesRelocated.addAndGet(bytes);
    bytesReclaimed.addAndGet(victim.blockBytes());
    segmentsReclaimed.incrementAndGet();
    log.info(
        "reclaimed segment {} ({} bytes of blocks, {} of {} records live): relocated {} records, {} bytes",
        victim.number(),
        victim.blockBytes(),
        liveBefore,
        victim.records(),
        out.size(),
        bytes);
    return new long[] {out.size(), bytes};
  }

  /**
   * Whether a record is garbage by its header alone, given the index's value for its ID: a newer
   * version lives elsewhere (whatever this record is), or it is a put that is no longer current.
   * What remains (the current version, and tombstones of IDs now absent) needs its body: {@link
   * #keep}.
   */
  private static boolean garbage(Op op, long address, long current) {
    if (current >= 0) {
      return current != address;
    }
    return op == Op.PUT || op == Op.PUT_EXPIRING;
  }

  /**
   * What record {@code r} of the victim needs appended, or null if it is garbage, given the index's
   * value {@code current} for its ID: a live version (the index points at it) is relocated, or
   * dropped if expired; a delete (or a dropped or relocated one) stays if no newer version replaced
   * it and another segment may hold an older version of its ID, which a rebuild would otherwise let
   * show through.
   */
  private Relocation keep(QueueRecord r, StoredBody stored, long current, long victim, long now)
      throws IOException {
    ByteBuffer body = ByteBuffer.wrap(r.body());
    if (r.originalOp() == Op.SOURCE) {
      return keepSource(r, current, victim);
    }
    if (r.originalOp() == Op.GROUPS) {
      // A document's projections: live while its group key points here; they expire with it.
      if (store.lookup(GroupKeys.key(r.id())) != r.address()) {
        return null;
      }
      long expires = r.expiresAtMillis();
      if (expires != RecordBody.NEVER && now >= expires) {
        return new Relocation(
            r.id(), Op.DROPPED, r.acceptedAtMillis(), RecordBody.dropped(r.version(), r.address()));
      }
      Relocation copy = relocatedWhole(r, Op.GROUPS, r.document());
      return new Relocation(copy.id(), copy.op(), copy.acceptedAtMillis(), copy.body(), stored);
    }
    if (r.stores()) {
      if (current != r.address()) {
        return null; // replaced, deleted or relocated since
      }
      long expires = r.expiresAtMillis();
      if (expires != RecordBody.NEVER && now >= expires) {
        return new Relocation(
            r.id(), Op.DROPPED, r.acceptedAtMillis(), RecordBody.dropped(r.version(), r.address()));
      }
      int doc = RecordBody.documentOffset(r.op(), body, 0, r.body().length);
      return new Relocation(
          r.id(),
          Op.RELOCATED,
          r.acceptedAtMillis(),
          RecordBody.relocated(
              r.version(), r.address(), r.originalOp(), expires, body, doc, r.body().length - doc),
          stored);
    }
    // A tombstone: DELETE, DROPPED, or a relocated DELETE.
    if (current >= 0) {
      return null; // a newer version lives; it wins over anything older in any rebuild
    }
    if (!olderVersionMayExist(r.id(), victim)) {
      return null;
    }
    if (r.op() == Op.DROPPED) {
      return new Relocation(r.id(), Op.DROPPED, r.acceptedAtMillis(), r.body());
    }
    return new Relocation(
        r.id(),
        Op.RELOCATED,
        r.acceptedAtMillis(),
        RecordBody.relocated(r.version(), r.address(), Op.DELETE, RecordBody.NEVER, body, 0, 0));
  }

  /**
   * A partition's newest SOURCE record (its position in the update log, see {@link SourceKeys}) is
   * relocated resolved: as a SOURCE record of no records whose next offset is where its run's
   * durable records end, since the run's records no longer follow the copy. Older ones are garbage.
   *
   * @throws IOException if the run is still being written (its end is not known yet): the victim
   *     stays whole for a later pass
   */
  private Relocation keepSource(QueueRecord r, long current, long victim) throws IOException {
    if (current != r.address()) {
      return null;
    }
    long position;
    try (QueueTailer after = store.tailer(r.sequence() + 1)) {
      position = SourceKeys.position(r, after, false);
    }
    if (position == SourceKeys.OPEN_RUN) {
      throw new IOException(
          "segment "
              + victim
              + " holds an update-log position whose run is still being written: it stays whole"
              + " for a later pass");
    }
    return relocatedWhole(r, Op.SOURCE, SourceKeys.resolved(r, position));
  }

  /** A RELOCATED copy of {@code r} (of kind {@code original}) whose document is {@code body}. */
  private static Relocation relocatedWhole(QueueRecord r, Op original, byte[] body) {
    return new Relocation(
        r.id(),
        Op.RELOCATED,
        r.acceptedAtMillis(),
        RecordBody.relocated(
            r.version(),
            r.address(),
            original,
            RecordBody.NEVER,
            ByteBuffer.wrap(body),
            0,
            body.length));
  }

  /** Whether a segment other than {@code victim} may hold a record of {@code id}. */
  private boolean olderVersionMayExist(long id, long victim) throws IOException {
    for (SegmentSummary s : store.segments()) {
      if (s.number() == victim || store.reclaimed(s.number())) {
        continue;
      }
      if (!s.sealed()) {
        return true; // the newest segments change; be safe
      }
      if (ids(s).mightContain(id)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The IDs of sealed segment {@code s} (one scan of it, then kept: it never changes); the scan
   * also learns the segment's expiry horizon.
   */
  private BloomFilter<Long> ids(SegmentSummary s) throws IOException {
    BloomFilter<Long> f = idsBySegment.get(s.number());
    if (f == null) {
      f = BloomFilter.create(Funnels.longFunnel(), Math.max(16, s.records()), 0.01);
      long horizon = Long.MIN_VALUE;
      try (QueueTailer t = store.tailer(s.firstSequence())) {
        QueueRecord r;
        while ((r = t.poll()) != null && r.sequence() <= s.lastSequence()) {
          f.put(r.id());
          if (r.stores()) {
            long e = r.expiresAtMillis();
            horizon = Math.max(horizon, e == RecordBody.NEVER ? Long.MAX_VALUE : e);
          }
        }
      }
      horizons.put(s.number(), horizon);
      idsBySegment.put(s.number(), f);
    }
    return f;
  }
}
