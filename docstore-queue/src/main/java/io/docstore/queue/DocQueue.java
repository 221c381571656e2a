package io.docstore.queue;

import io.docstore.io.DirectoryLock;
import io.docstore.io.GroupCommit;
import io.docstore.queue.block.BlockCache;
import io.docstore.queue.block.RecordDictionary;
import io.docstore.queue.block.ZstdRecords;
import io.docstore.queue.segment.HollowSegment;
import io.docstore.queue.segment.QueueCounters;
import io.docstore.queue.segment.SegmentAppender;
import io.docstore.queue.segment.SegmentInfo;
import io.docstore.queue.segment.SegmentRecovery;
import io.docstore.queue.segment.SegmentSet;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The docstore queue: an append-only log of document records in segment files of compressed,
 * checksummed blocks. One writer object (shared by any number of appending threads), one reader
 * (shared), any number of tailers.
 *
 * <p>{@link #open} recovers: sealed segments are checked by header and footer, the active segment
 * is scanned and a torn tail cut off (see docs/formats/segment.md for the policy).
 *
 * <p>One open {@code DocQueue} per directory: {@link #open} takes the directory's {@code LOCK} (a
 * second open, in this process or another, fails) until {@link #close}.
 *
 * <p>Thread-safe. {@link #close} writes the open block and fsyncs; it does not seal the active
 * segment (the next open resumes it).
 */
public final class DocQueue implements java.io.Closeable {

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(DocQueue.class);

  private final Path dir;

  /** One writer per directory: held from open to close. */
  private final DirectoryLock lock;

  private final QueueOptions options;
  private final QueueCounters counters;
  private final SegmentSet segments;
  private final SegmentAppender appender;
  private final GroupCommit commit;
  private final QueueWriter writer;
  private final QueueReader reader;
  private final AppendSignal signal = new AppendSignal();
  private boolean closed;

  /** Opened by {@link #openReadOnly}: no writer; the last sequence found at open. */
  private final boolean readOnly;

  private final long readOnlyLast;

  /** The off-heap decoded-block cache, or null if off. */
  private final BlockCache cache;

  /** {@link #wholeBlockBytesAfterDictionary} of sealed segments read once, by number. */
  private final java.util.Map<Long, Long> scannedWholeBlockBytes =
      new java.util.concurrent.ConcurrentHashMap<>();

  private DocQueue(
      Path dir,
      QueueOptions options,
      QueueCounters counters,
      SegmentRecovery.Recovered r,
      DirectoryLock lock)
      throws IOException {
    this.dir = dir;
    this.lock = lock;
    this.options = options;
    this.counters = counters;
    this.segments = r.segments();
    this.appender = r.appender();
    this.readOnly = appender == null;
    this.readOnlyLast = r.lastSequence();
    this.cache =
        options.blockCacheBytes() >= BlockCache.HEADER + options.blockSize()
            ? new BlockCache(options.blockCacheBytes(), options.blockSize())
            : null;
    this.reader =
        new QueueReader(
            segments, counters, cache, expectedBlockBytes(options), options.mappedReads());
    if (readOnly) {
      this.writer = null;
      this.commit = null;
      if (segments.count() > 0) {
        SegmentInfo last = segments.last();
        RecordDictionary d = dictionaryOf(last);
        if (d != null) {
          last.dictionary(d);
        }
      }
      return;
    }
    // What recovery found may so far be only in the page cache (a process crash under sync=none):
    // force it once, so the durable position can start at the recovered end.
    appender.force();
    counters.fsyncs.increment();
    this.writer = new QueueWriter(appender, options, counters, signal, r.lastSequence());
    this.commit =
        new GroupCommit(
            "queue-" + dir.getFileName(),
            options.syncPolicy(),
            writer::lastWritten,
            appender::force,
            r.lastSequence());
    commit.onSync(nanos -> counters.fsyncs.increment());
    writer.attach(commit);
    startDictionary(segments, writer);
  }

  /**
   * Gives the writer the dictionary of the newest segment that starts with one (the active segment,
   * else the one before it), so that a reopened queue goes on with it rather than training again.
   */
  private static void startDictionary(SegmentSet segments, QueueWriter writer) throws IOException {
    SegmentInfo active = segments.last();
    RecordDictionary d = dictionaryOf(active);
    if (d != null) {
      active.dictionary(d);
      writer.startDictionary(d, active.number());
      return;
    }
    SegmentInfo previous = segments.get(active.number() - 1);
    writer.startDictionary(previous == null ? null : dictionaryOf(previous), -1);
  }

  /**
   * The dictionary a segment starts with, or null (none, or damaged: then reads of that segment's
   * compressed records report the damage, and the writer trains a new one rather than not opening).
   */
  private static RecordDictionary dictionaryOf(SegmentInfo segment) throws IOException {
    try {
      return ZstdRecords.first(segment.channel(), segment.path(), segment.blocksEnd());
    } catch (io.docstore.io.CorruptionException e) {
      LOG.warn(
          "{}: its dictionary block is damaged ({}); the writer trains a new dictionary",
          segment.path(),
          e.getMessage());
      return null;
    }
  }

  /** Opens (creating the directory if needed) and recovers the queue in {@code dir}. */
  public static DocQueue open(Path dir, QueueOptions options) throws IOException {
    options.fileSystem().createDirectories(dir);
    DirectoryLock lock = DirectoryLock.acquire(dir);
    QueueCounters counters = new QueueCounters();
    SegmentRecovery.Recovered r;
    try {
      r =
          SegmentRecovery.open(
              options.fileSystem(),
              dir,
              counters,
              options.segmentSize(),
              expectedBlockBytes(options));
    } catch (IOException | RuntimeException e) {
      lock.close();
      throw e;
    }
    try {
      return new DocQueue(dir, options, counters, r, lock);
    } catch (IOException | RuntimeException e) {
      r.appender().close();
      r.segments().closeAll();
      lock.close();
      throw e;
    }
  }

  /**
   * Opens the queue in {@code dir} for reading only: nothing in the directory changes (a torn tail
   * stays where it is and readers stop before it; an interrupted seal is not finished; no segment
   * is created). It takes the directory's lock like {@link #open}, so it fails while a writer has
   * the queue open. {@link #writer} and {@link #bulkAppender} then fail.
   */
  public static DocQueue openReadOnly(Path dir, QueueOptions options) throws IOException {
    if (!options.fileSystem().exists(dir)) {
      throw new java.io.FileNotFoundException("no queue directory " + dir);
    }
    DirectoryLock lock = DirectoryLock.acquire(dir);
    QueueCounters counters = new QueueCounters();
    SegmentRecovery.Recovered r;
    try {
      r =
          SegmentRecovery.openReadOnly(
              options.fileSystem(), dir, counters, expectedBlockBytes(options));
      return new DocQueue(dir, options, counters, r, lock);
    } catch (IOException | RuntimeException e) {
      lock.close();
      throw e;
    }
  }

  /**
   * Bytes a first read of a block asks for: every block but one holding an oversized record fits.
   */
  private static int expectedBlockBytes(QueueOptions options) {
    return io.docstore.queue.format.BlockFormat.HEADER_LENGTH + options.blockSize();
  }

  public Path directory() {
    return dir;
  }

  public QueueOptions options() {
    return options;
  }

  /**
   * The writer; shared by all appending threads.
   *
   * @throws IllegalStateException if the queue was opened read-only
   */
  public QueueWriter writer() {
    if (writer == null) {
      throw new IllegalStateException("the queue in " + dir + " was opened read-only");
    }
    return writer;
  }

  /**
   * A bulk appender encoding blocks on {@code threads} threads; it holds the writer (other
   * appenders wait) until its {@code finish} or {@code close}, and must be used from the calling
   * thread.
   */
  public BulkAppender bulkAppender(int threads, BulkAppender.Sink sink) throws IOException {
    return writer().bulk(threads, sink);
  }

  /** The reader; thread-safe and shareable. */
  public QueueReader reader() {
    return reader;
  }

  /**
   * A reader of this queue with another judge of cold mapped reads (tests of the mapped-read
   * fallback).
   */
  QueueReader reader(io.docstore.io.ColdReads coldReads) {
    return new QueueReader(
        segments, counters, null, expectedBlockBytes(options), options.mappedReads(), coldReads);
  }

  /** A tailer over records with sequence {@code >= fromSequence}, in order. */
  public QueueTailer tailer(long fromSequence) throws IOException {
    return new QueueTailer(
        segments, counters, signal, expectedBlockBytes(options), fromSequence, 0, writer);
  }

  /**
   * {@link #tailer} from the record after {@code r} (a record read from this queue), which it finds
   * from {@code r}'s block on rather than from the start of its segment: a few block headers read
   * instead of up to a whole segment's.
   */
  public QueueTailer tailerAfter(QueueRecord r) throws IOException {
    return new QueueTailer(
        segments,
        counters,
        signal,
        expectedBlockBytes(options),
        r.sequence() + 1,
        r.address(),
        writer);
  }

  /**
   * The records of segment {@code number} by their headers alone, no body decompressed (see {@link
   * RecordHeaderScan}).
   *
   * @throws IllegalArgumentException if there is no such segment or it is hollow
   */
  public RecordHeaderScan scanHeaders(long number) {
    SegmentInfo s = segments.get(number);
    if (s == null) {
      throw new IllegalArgumentException("no segment " + number + " in the queue");
    }
    return new RecordHeaderScan(s, expectedBlockBytes(options));
  }

  /**
   * Bytes of segment {@code number}'s blocks after its dictionary that are not compressed with it
   * (LZ4 appends, see {@link QueueWriter#lz4Appends(boolean)}): what copying their records into
   * blocks of the dictionary would shrink. Known without reading for a segment this process wrote
   * entirely; for an older sealed one, its block headers are read once (about one read per 256 KiB)
   * if {@code scan}, else -1 is returned until then; for the active segment, what was appended to
   * it since open. 0 for a hollow segment.
   *
   * @throws IllegalArgumentException if there is no such segment
   */
  public long wholeBlockBytesAfterDictionary(long number, boolean scan) throws IOException {
    SegmentInfo s = segments.get(number);
    if (s == null) {
      throw new IllegalArgumentException("no segment " + number + " in the queue");
    }
    if (s.reclaimed()) {
      return 0;
    }
    if (!readOnly && (writer.wroteWhole(number) || !s.sealed())) {
      return writer.lz4Bytes(number); // the active segment: what was appended since open
    }
    Long known = scannedWholeBlockBytes.get(number);
    if (known != null || !scan || !s.sealed()) {
      return known != null ? known : -1;
    }
    long bytes =
        new RecordHeaderScan(s, expectedBlockBytes(options)).wholeBlockBytesAfterDictionary();
    scannedWholeBlockBytes.put(number, bytes);
    return bytes;
  }

  /**
   * A tailer starting at the record stored at {@code address} (inclusive).
   *
   * @throws IllegalArgumentException if no record can have this address
   */
  public QueueTailer tailerAt(long address) throws IOException {
    return tailer(reader.get(address).sequence());
  }

  /** Highest sequence written to a segment file (readable), 0 if empty. */
  public long lastSequence() {
    return readOnly ? readOnlyLast : writer.lastWritten();
  }

  /** Highest sequence known durable (fsynced); read-only: what was found on disk. */
  public long durableSequence() {
    return readOnly ? readOnlyLast : commit.durablePosition();
  }

  /** Whether the queue was opened with {@link #openReadOnly}. */
  public boolean readOnly() {
    return readOnly;
  }

  /** The segments of the queue now, oldest first. */
  public java.util.List<SegmentSummary> segmentSummaries() {
    java.util.List<SegmentSummary> out = new java.util.ArrayList<>();
    for (SegmentInfo s : segments.all()) {
      out.add(
          new SegmentSummary(
              s.number(),
              s.baseSequence(),
              s.lastSequence(),
              s.blocksEnd() - io.docstore.queue.format.SegmentFormat.HEADER_LENGTH,
              s.sealed()));
    }
    return out;
  }

  /** Segment files of the queue now (sealed and active). */
  public int segmentCount() {
    return segments.count();
  }

  /**
   * Bytes of blocks in the queue's segments now (the queue's size on disk, less headers and
   * footers).
   */
  public long segmentBytes() {
    return segments.blockBytes();
  }

  public QueueStats stats() {
    QueueCounters c = counters;
    return new QueueStats(
        c.appends.sum(),
        c.bodyBytes.sum(),
        c.rawBytes.sum(),
        c.storedBytes.sum(),
        c.blocks.sum(),
        c.compressedBlocks.sum(),
        c.segmentsCreated.sum(),
        c.segmentsSealed.sum(),
        c.fsyncs.sum(),
        c.tornTailBytesDropped.sum(),
        c.blockReads.sum(),
        c.blockReadsMapped.sum(),
        c.blockReadsMappedCold.sum(),
        c.blockCacheHits.sum(),
        cache == null ? 0 : cache.misses(),
        cache == null ? 0 : cache.evictions(),
        cache == null ? 0 : cache.bytes(),
        cache == null ? 0 : cache.capacityBytes());
  }

  /**
   * How long a reclaimed segment's old file stays open after {@link #reclaim}, for the reads that
   * found it just before.
   */
  static final long RECLAIM_GRACE_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(30);

  /** A replaced segment not yet closed, and when it was replaced ({@link System#nanoTime}). */
  private record Retired(SegmentInfo segment, long atNanos) {}

  private final java.util.ArrayDeque<Retired> retired = new java.util.ArrayDeque<>();

  /**
   * Replaces sealed segment {@code number} by its hollow form ({@link HollowSegment}): its records,
   * which the caller has relocated or found garbage, and their bytes are gone; its sequence range
   * stays, and tailers step over it. Reads by address into it throw {@link
   * ReclaimedAddressException}, except reads that found the segment before: its old file stays open
   * for them for a grace period.
   *
   * @throws IllegalArgumentException if it is not a sealed segment holding blocks, or it is the
   *     newest segment
   */
  public synchronized void reclaim(long number) throws IOException {
    if (closed || readOnly) {
      throw new IOException("queue " + dir + " is " + (closed ? "closed" : "read-only"));
    }
    SegmentInfo victim = segments.get(number);
    if (victim == null || victim == segments.last()) {
      throw new IllegalArgumentException(
          "segment " + number + (victim == null ? " does not exist" : " is the newest"));
    }
    SegmentInfo hollow = HollowSegment.replace(options.fileSystem(), dir, victim);
    segments.add(hollow);
    counters.segmentsReclaimed.increment();
    closeRetired(false);
    retired.add(new Retired(victim, System.nanoTime()));
  }

  /** Whether segment {@code number} is hollow (its records reclaimed). */
  public boolean reclaimed(long number) {
    SegmentInfo s = segments.get(number);
    return s != null && s.reclaimed();
  }

  /** Closes the replaced segments whose grace period ended, or all of them. */
  private void closeRetired(boolean all) {
    long now = System.nanoTime();
    while (!retired.isEmpty() && (all || now - retired.peek().atNanos() >= RECLAIM_GRACE_NANOS)) {
      SegmentInfo s = retired.poll().segment();
      try {
        s.close();
      } catch (IOException e) {
        LOG.warn("closing the replaced file of reclaimed segment {}: {}", s.number(), e.toString());
      }
    }
  }

  /** Writes the open block, fsyncs and closes the files. Idempotent. */
  @Override
  public synchronized void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    closeRetired(true);
    if (readOnly) {
      try {
        segments.closeAll();
      } finally {
        lock.close();
      }
      return;
    }
    try {
      writer.close();
      if (!writer.failed()) {
        commit.syncNow();
        writer.markForced();
      }
    } finally {
      commit.close();
      try {
        appender.close();
      } finally {
        segments.closeAll();
        signal.signal();
        lock.close();
      }
    }
  }
}
