package io.docstore.queue.follow;

import static io.docstore.queue.format.SegmentFormat.HEADER_LENGTH;

import io.docstore.io.CorruptionException;
import io.docstore.io.FileSystem;
import io.docstore.queue.Op;
import io.docstore.queue.QueueRecord;
import io.docstore.queue.block.BlockReader;
import io.docstore.queue.block.DecodedBlock;
import io.docstore.queue.format.Address;
import io.docstore.queue.replication.BlockCrcChain;
import io.docstore.queue.replication.ReplicationManifest;
import io.docstore.queue.segment.SegmentHeader;
import io.docstore.queue.segment.SegmentScanner;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows a queue directory that rsync fills (a replica's copy of a primary's queue).
 *
 * <p>Ingestion ({@link #poll}) is bounded by the copied {@code replication.manifest}: segments
 * below the manifest's are ingested only from a {@code .sealed} copy whose every block, sequence
 * and footer verify ({@link SegmentScanner}); the manifest's own segment only up to its durable
 * length, and only once every block up to there verifies and their {@link BlockCrcChain} equals the
 * manifest's. A copy shorter than the manifest is lag (it was copied earlier), not an error. A
 * block that fails, a gap, a diverged chain or a copy that shrank below what was ingested is an
 * error: it is logged, counted, the copy is deleted so that the next pull fetches it whole, and
 * ingestion stops there until then. So no record of a half-copied or damaged block is ever handed
 * on.
 *
 * <p>A history that is no longer the primary's is not an error of the copy: when the manifest
 * declares less than was ingested, or the copy verifies against the manifest (or in full, sealed)
 * but not at the point's offset, chain and sequence, {@link #poll} stops with a {@link Divergence}
 * (logged as a WARN naming segment and offset) and hands nothing on; the caller re-syncs.
 *
 * <p>Reads by address ({@link #read}) go to the newest verified copy of each segment; rsync
 * replacing a file by rename is seen by comparing file keys and the copy is reopened (readers that
 * raced with the close retry once). A read that finds damage reports the segment, which the next
 * {@link #poll} deletes for re-fetch.
 *
 * <p>Thread-safety: {@link #poll} from one thread at a time (the ingesting thread); {@link #read},
 * {@link #point}, {@link #manifest} and {@link #counters} from any thread.
 */
public final class QueueFollower implements Closeable {

  private static final Logger LOG = LoggerFactory.getLogger(QueueFollower.class);

  /**
   * What one {@link #poll} did: records handed on, and what stopped it, if anything: an error (the
   * copy is being re-fetched) or a divergence (the caller must re-sync, see {@link Divergence}).
   */
  public record Result(long records, String error, Divergence divergence) {}

  /**
   * This replica's ingested history is not a prefix of the primary's: the primary's copy (as the
   * copied manifest and a verified copy show it) differs from what was ingested, at or before
   * {@code offset} of {@code segment}, or the primary declares less than was ingested (it lost what
   * this replica holds, e.g. to a power loss on a disk that did not keep what it had fsynced). The
   * ingested records are not the primary's any more: the caller drops what it derived from them and
   * the copies from {@code segment} on ({@link #dropCopiesFrom}) and ingests again from the start.
   * Nothing is handed on once it is found.
   */
  public record Divergence(long segment, long offset, String reason, boolean reclaimed) {

    /** A divergence proper: the primary's history is not the one this replica ingested. */
    public Divergence(long segment, long offset, String reason) {
      this(segment, offset, reason, false);
    }
  }

  private final FileSystem fs;
  private final Path dir;
  private final int expectedBlockBytes;
  private final BlockReader reader;
  private final HistoryCheck history;
  private final DecodedBlock block = new DecodedBlock();
  private final FollowerCounters counters = new FollowerCounters();
  private final Map<Long, SegmentCopy> copies = new ConcurrentHashMap<>();
  private final Set<Long> damaged = ConcurrentHashMap.newKeySet();
  private final CopyReader copyReader;
  private volatile FollowPoint point;
  private volatile ReplicationManifest manifest;
  private volatile String lastError;

  /**
   * @param start where to resume ({@link FollowPoint#START} for an empty replica)
   * @param expectedBlockBytes the primary's block header + block size: the usual read size
   */
  public QueueFollower(FileSystem fs, Path dir, FollowPoint start, int expectedBlockBytes) {
    this.fs = fs;
    this.dir = dir;
    this.expectedBlockBytes = expectedBlockBytes;
    this.reader = new BlockReader(expectedBlockBytes);
    this.history = new HistoryCheck(reader);
    this.copyReader = new CopyReader(fs, dir, copies, damaged, counters, expectedBlockBytes);
    this.point = start;
  }

  public Path directory() {
    return dir;
  }

  /** Everything before this point was verified and handed on. */
  public FollowPoint point() {
    return point;
  }

  /** The last manifest read from the copy, or null. */
  public ReplicationManifest manifest() {
    return manifest;
  }

  public FollowerCounters counters() {
    return counters;
  }

  /**
   * Reads the copy's manifest into {@link #manifest} without ingesting anything, so that what the
   * primary last declared durable is known before the first {@link #poll} (a restarted replica
   * whose primary is unreachable). A missing manifest leaves {@link #manifest} as it was, and so
   * does a damaged one: the next poll counts it and deletes it for re-fetch. From the ingesting
   * thread, or before it starts.
   */
  public void loadManifest() throws IOException {
    try {
      ReplicationManifest m = ReplicationManifest.read(fs, dir);
      if (m != null) {
        manifest = m;
      }
    } catch (CorruptionException e) {
      // left to poll, which counts and repairs it
    }
  }

  /** The error that stopped the last poll, or null if it ended cleanly. */
  public String lastError() {
    return lastError;
  }

  /**
   * Ingests what the copy now holds and the manifest allows, handing records to {@code sink} in
   * order.
   */
  public Result poll(RecordSink sink) throws IOException {
    return poll(sink, false);
  }

  /**
   * {@link #poll(RecordSink)}; a hollow segment (reclaimed by the primary) this replica has not
   * ingested is stepped over when {@code stepOverReclaimed} (the caller judges what follows by
   * version, as a rebuild does), and is a {@link Divergence} otherwise: the records it held were
   * relocated to later segments, which compare-and-set alone cannot take without them, so the
   * replica starts over (docs/design/space-reclamation.md, "Replicas").
   */
  public Result poll(RecordSink sink, boolean stepOverReclaimed) throws IOException {
    repairDamaged();
    ReplicationManifest m;
    try {
      m = ReplicationManifest.read(fs, dir);
    } catch (CorruptionException e) {
      counters.manifestErrors.increment();
      return fail(
          "damaged replication manifest, deleted for re-fetch: " + e.getMessage(),
          dir.resolve(io.docstore.queue.replication.ManifestFormat.FILE_NAME),
          null);
    }
    if (m == null) {
      return done(0);
    }
    manifest = m;
    long before = counters.recordsIngested.sum();
    while (true) {
      FollowPoint p = point;
      if (p.segment() > m.segment()) {
        // Manifests never move backwards on a primary that kept what it fsynced; this one's newest
        // segment is older than what was ingested (fetched fresh by every pull).
        return diverged(
            m.segment(),
            m.durableLength(),
            "the primary's newest segment is "
                + m.segment()
                + " (durable to offset "
                + m.durableLength()
                + "), this replica ingested up to segment "
                + p.segment()
                + " offset "
                + p.offset());
      }
      if (p.segment() == m.segment()) {
        Divergence d = HistoryCheck.behind(p, m);
        if (d != null) {
          return diverged(d.segment(), d.offset(), d.reason());
        }
      }
      SegmentCopy copy;
      try {
        copy = copyFor(p.segment());
      } catch (CorruptionException e) {
        counters.checksumFailures.increment();
        return fail(
            "damaged segment header, deleted for re-fetch: " + e.getMessage(), e.file(), null);
      }
      if (copy == null) {
        break; // not copied yet
      }
      io.docstore.queue.segment.SegmentFooter hollow;
      try {
        hollow = copy.hollowFooter();
      } catch (CorruptionException e) {
        counters.checksumFailures.increment();
        return fail(
            "damaged segment footer, deleted for re-fetch: " + e.getMessage(), e.file(), copy);
      }
      if (hollow != null) {
        if (!stepOverReclaimed || p.offset() != HEADER_LENGTH) {
          return reclaimedBefore(
              p.segment(),
              p.offset(),
              "the primary reclaimed segment "
                  + p.segment()
                  + " (its records relocated) before this replica ingested "
                  + (p.offset() == HEADER_LENGTH ? "it" : "all of it")
                  + "; starting over, judging relocated records by version");
        }
        point =
            new FollowPoint(
                p.segment() + 1, HEADER_LENGTH, hollow.lastSequence() + 1, BlockCrcChain.START);
        counters.reclaimedSegmentsSkipped.increment();
        continue;
      }
      long size = copy.channel().size();
      if (size < p.offset()) {
        counters.shrunkFiles.increment();
        return fail(
            copy.path()
                + " shrank to "
                + size
                + " bytes below the ingested offset "
                + p.offset()
                + "; deleted for re-fetch",
            copy.path(),
            copy);
      }
      if (p.segment() < m.segment()) {
        if (!copy.sealed()) {
          break; // the sealed copy has not arrived yet
        }
        Result stopped = ingestSealed(copy, sink);
        if (stopped != null) {
          return stopped;
        }
        continue;
      }
      if (p.offset() >= m.durableLength() || size < m.durableLength()) {
        break; // nothing new declared durable, or the copy predates the manifest
      }
      String problem = ingestActive(copy, m, sink);
      if (problem != null) {
        Divergence d = history.divergedBefore(copy, m, point);
        if (d != null) {
          return diverged(d.segment(), d.offset(), d.reason() + " (found as: " + problem + ")");
        }
        return fail(problem, copy.path(), copy);
      }
      break;
    }
    return done(counters.recordsIngested.sum() - before);
  }

  private Result done(long records) {
    lastError = null;
    return new Result(records, null, null);
  }

  private Result diverged(long segment, long offset, String reason) {
    LOG.warn(
        "replica diverged from its primary at segment {} offset {}: {}; re-syncing",
        segment,
        offset,
        reason);
    lastError = "diverged at segment " + segment + " offset " + offset + ": " + reason;
    return new Result(0, lastError, new Divergence(segment, offset, reason));
  }

  /**
   * Not a divergence of histories: the primary reclaimed a segment this replica had not ingested
   * all of, so it starts over the same way (a {@link Divergence} flagged {@code reclaimed}).
   */
  private Result reclaimedBefore(long segment, long offset, String reason) {
    LOG.info("replica starts over at segment {} offset {}: {}", segment, offset, reason);
    lastError = null;
    return new Result(0, null, new Divergence(segment, offset, reason, true));
  }

  private Result fail(String problem, Path file, SegmentCopy copy) throws IOException {
    LOG.error("replica ingestion stopped: {}", problem);
    lastError = problem;
    if (copy == null || copy.current(dir)) {
      fs.delete(file);
      fs.syncDirectory(dir);
      counters.refetches.increment();
    }
    return new Result(0, problem, null);
  }

  /** The newest copy of a segment, reopened if rsync replaced the file; null if none exists. */
  private SegmentCopy copyFor(long segment) throws IOException {
    SegmentCopy c = copies.get(segment);
    if (c != null && c.current(dir)) {
      return c;
    }
    SegmentCopy fresh = SegmentCopy.open(fs, dir, segment);
    if (fresh == null) {
      return c;
    }
    SegmentHeader h;
    try {
      h = SegmentHeader.read(fresh.channel(), fresh.path());
      if (h.segment() != segment) {
        throw new CorruptionException(fresh.path(), 0, "header names segment " + h.segment());
      }
    } catch (IOException e) {
      fresh.close();
      throw e;
    }
    install(fresh);
    return fresh;
  }

  private void install(SegmentCopy fresh) {
    SegmentCopy old;
    synchronized (copies) {
      old = copies.put(fresh.segment(), fresh);
    }
    if (old != null && old != fresh) {
      counters.reopens.increment();
      old.close(); // readers on it retry with the fresh copy
    }
  }

  /**
   * Verifies a whole sealed copy, then hands on its blocks from the point. Null if it went on to
   * the next segment, else what stopped it: a damaged copy ({@link #fail}), or a {@link
   * Divergence}: the copy verifies but does not continue the history ingested so far (another start
   * sequence, or no block boundary, another chain or another sequence at the point's offset).
   */
  private Result ingestSealed(SegmentCopy copy, RecordSink sink) throws IOException {
    FollowPoint p = point;
    long size = copy.channel().size();
    SegmentScanner scan;
    int chainAtPoint = BlockCrcChain.START;
    long nextAtPoint = -1;
    try {
      scan = new SegmentScanner(copy.path(), copy.channel(), size, reader);
      DecodedBlock scratch = new DecodedBlock();
      int chain = BlockCrcChain.START;
      if (scan.position() == p.offset()) {
        nextAtPoint = scan.nextSequence();
      }
      while (scan.next(scratch) == SegmentScanner.Kind.BLOCK) {
        // verifying every block, the sequences and the footer's digest
        chain = BlockCrcChain.next(chain, scratch.crc());
        if (scan.position() == p.offset()) {
          chainAtPoint = chain;
          nextAtPoint = scan.nextSequence();
        }
      }
    } catch (CorruptionException e) {
      counters.checksumFailures.increment();
      return fail("sealed copy failed verification: " + e.getMessage(), copy.path(), copy);
    }
    if (p.nextSequence() != 0 && (nextAtPoint != p.nextSequence() || chainAtPoint != p.chain())) {
      long segment = HistoryCheck.segmentOf(p);
      return diverged(
          segment,
          p.offset(),
          "the primary's sealed "
              + copy.path().getFileName()
              + " (verified in full) "
              + (nextAtPoint < 0
                  ? "has no block boundary at offset " + p.offset()
                  : "has chain "
                      + Integer.toHexString(chainAtPoint)
                      + " before sequence "
                      + nextAtPoint
                      + " at offset "
                      + p.offset())
              + ", this replica ingested chain "
              + Integer.toHexString(p.chain())
              + " before sequence "
              + p.nextSequence());
    }
    long end = scan.footer().blocksEnd();
    String problem = emit(copy, p.offset(), end, sink);
    if (problem != null) {
      return fail(problem, copy.path(), copy);
    }
    FollowPoint q = point;
    point = new FollowPoint(q.segment() + 1, HEADER_LENGTH, q.nextSequence(), BlockCrcChain.START);
    return null;
  }

  /**
   * Verifies the blocks up to the manifest's durable length and their chain, then hands them on.
   */
  private String ingestActive(SegmentCopy copy, ReplicationManifest m, RecordSink sink)
      throws IOException {
    FollowPoint p = point;
    long pos = p.offset();
    int chain = p.chain();
    long next = p.nextSequence();
    if (next == 0) {
      next = m.baseSequence();
    }
    while (pos < m.durableLength()) {
      try {
        reader.read(copy.channel(), copy.path(), pos, m.durableLength(), block);
      } catch (CorruptionException e) {
        counters.checksumFailures.increment();
        return "block in the durable region failed verification: " + e.getMessage();
      }
      if (block.firstSequence() != next) {
        counters.gaps.increment();
        return copy.path()
            + " at offset "
            + pos
            + ": block starts at sequence "
            + block.firstSequence()
            + ", expected "
            + next;
      }
      chain = BlockCrcChain.next(chain, block.crc());
      next = block.lastSequence() + 1;
      pos = block.end();
    }
    if (chain != m.chain() || next - 1 != m.lastSequence()) {
      counters.chainMismatches.increment();
      return copy.path()
          + " up to "
          + m.durableLength()
          + " does not match the manifest (chain "
          + Integer.toHexString(chain)
          + " vs "
          + Integer.toHexString(m.chain())
          + ", last sequence "
          + (next - 1)
          + " vs "
          + m.lastSequence()
          + ")";
    }
    return emit(copy, p.offset(), m.durableLength(), sink);
  }

  /**
   * Hands on the records of the (already verified) blocks in [from, to), advancing the point per
   * block.
   */
  private String emit(SegmentCopy copy, long from, long to, RecordSink sink) throws IOException {
    long pos = from;
    while (pos < to) {
      try {
        reader.read(copy.channel(), copy.path(), pos, to, block);
      } catch (CorruptionException e) {
        counters.checksumFailures.increment();
        return "block changed after verification: " + e.getMessage();
      }
      FollowPoint p = point;
      long expected = p.nextSequence() == 0 ? block.firstSequence() : p.nextSequence();
      if (block.firstSequence() != expected) {
        counters.gaps.increment();
        return copy.path()
            + " at offset "
            + pos
            + ": block starts at sequence "
            + block.firstSequence()
            + ", expected "
            + expected;
      }
      for (int i = 0; i < block.count(); i++) {
        Op op = Op.of(block.op(i));
        sink.accept(
            new QueueRecord(
                Address.of(copy.segment(), block.offset(), i),
                block.id(i),
                block.firstSequence() + i,
                op,
                block.acceptedAtMillis(i),
                block.body(i)));
      }
      counters.blocksIngested.increment();
      counters.recordsIngested.add(block.count());
      counters.bytesIngested.add(block.end() - pos);
      pos = block.end();
      point =
          new FollowPoint(
              p.segment(),
              pos,
              block.lastSequence() + 1,
              BlockCrcChain.next(p.chain(), block.crc()));
    }
    return null;
  }

  /**
   * The record at {@code address}, read from the newest copy of its segment; the caller checks the
   * ID. Only addresses this follower handed on are meaningful. As on the primary, a record of a
   * block stored uncompressed or record by record is read and checked alone (its own checksum, and
   * only its body decompressed); an LZ4 block is verified and decoded whole.
   *
   * @throws CorruptionException if what was read is damaged in the copy (the segment is then
   *     re-fetched)
   * @throws IllegalArgumentException if the address is past what was ingested
   */
  public QueueRecord read(long address) throws IOException {
    long segment = Address.segment(address);
    FollowPoint p = point;
    // Blocks of the point's own segment may be read while their records are being handed on (the
    // index sees them first); they were verified before that started.
    if (segment > p.segment()) {
      throw new IllegalArgumentException(
          "address " + Address.toString(address) + " is past the ingested point " + p);
    }
    return copyReader.read(address);
  }

  /**
   * Segments readers found damaged: a sealed copy that still is the damaged file is deleted (the
   * next pull fetches it whole); a new copy that arrived is verified in full before readers switch
   * to it.
   */
  private void repairDamaged() throws IOException {
    for (Long segment : damaged) {
      SegmentCopy old = copies.get(segment);
      if (old != null && old.current(dir)) {
        if (verifies(old)) {
          damaged.remove(segment); // a transient or already-repaired damage
          continue;
        }
        LOG.error("segment {} is damaged in {}; deleting it for re-fetch", segment, old.path());
        fs.delete(old.path());
        fs.syncDirectory(dir);
        counters.refetches.increment();
        continue;
      }
      SegmentCopy fresh = SegmentCopy.open(fs, dir, segment);
      if (fresh == null) {
        continue;
      }
      if (segment < point.segment() && !verifies(fresh)) {
        fresh.close();
        continue; // still arriving, or damaged again: the next pull brings another copy
      }
      install(fresh);
      damaged.remove(segment);
      LOG.info("segment {} re-fetched and verified", segment);
    }
  }

  /**
   * Whether a copy verifies block by block: in full when sealed, up to the ingested point
   * otherwise.
   */
  private boolean verifies(SegmentCopy copy) throws IOException {
    FollowPoint p = point;
    long end = copy.segment() < p.segment() ? copy.channel().size() : p.offset();
    try {
      SegmentScanner scan =
          new SegmentScanner(
              copy.path(),
              copy.channel(),
              copy.channel().size(),
              new BlockReader(expectedBlockBytes));
      DecodedBlock scratch = new DecodedBlock();
      while (scan.position() < end) {
        if (scan.next(scratch) != SegmentScanner.Kind.BLOCK) {
          break;
        }
      }
      return scan.position() >= end && (copy.segment() >= p.segment() || scan.footer() != null);
    } catch (CorruptionException e) {
      return false;
    }
  }

  /**
   * After a {@link Divergence}: closes every open copy and deletes the copies of segments {@code
   * segment} and later, and the copied manifest, so that the next pull fetches them whole (rsync's
   * quick check could otherwise keep a diverged copy of the same size and mtime). Copies of earlier
   * segments stay: the pull before the next ingestion replaces any that differ on the primary, and
   * ingestion verifies them again. Call on a follower that no longer polls.
   */
  public void dropCopiesFrom(long segment) throws IOException {
    close();
    for (Path f : fs.list(dir)) {
      var name = io.docstore.queue.format.SegmentFileName.parse(f);
      if (name.isPresent() && name.get().segment() >= segment) {
        fs.delete(f);
      }
    }
    fs.delete(dir.resolve(io.docstore.queue.replication.ManifestFormat.FILE_NAME));
    fs.syncDirectory(dir);
  }

  /** Closes every open copy. */
  @Override
  public void close() {
    for (SegmentCopy c : copies.values()) {
      c.close();
    }
    copies.clear();
  }
}
