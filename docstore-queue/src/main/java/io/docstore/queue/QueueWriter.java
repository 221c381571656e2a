package io.docstore.queue;

import io.docstore.io.GroupCommit;
import io.docstore.io.NoSpaceException;
import io.docstore.queue.block.BlockBuilder;
import io.docstore.queue.block.RecordDictionary;
import io.docstore.queue.block.StoredBody;
import io.docstore.queue.format.Address;
import io.docstore.queue.format.BlockFormat;
import io.docstore.queue.format.SegmentFormat;
import io.docstore.queue.segment.QueueCounters;
import io.docstore.queue.segment.SegmentAppender;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Appends records. Thread-safe: concurrent appenders are serialized by one lock that covers
 * sequence assignment, encoding into the open block and writing full blocks; waiting for durability
 * happens outside it, so concurrent {@link #awaitDurable} callers share one fsync (group commit).
 *
 * <p>A record is readable once its block is written: when the blocks waiting to be written reach
 * {@code blockSize} bytes (a block of records stored one by one takes at most a 4 KiB page, and
 * such blocks are written together), or on {@link #flush}, {@link #awaitDurable} or {@link #sync}.
 *
 * <p>A block write that fails for lack of space ({@link NoSpaceException}) is not sticky: the
 * segment is cut back to its previous length, the records of the open block are discarded and their
 * sequence numbers handed out again, and the writer stays usable (the next write retries). Callers
 * learn that their records were discarded from {@link #awaitDurable(long, long)}, which compares
 * {@link #discards()} with the value read before appending. Any other failed write is sticky: the
 * writer refuses further appends (the file's tail is unknown); reopening the queue recovers. A
 * failed fsync is sticky in {@link GroupCommit}.
 *
 * <p>Every {@link QueueOptions#bytesPerSync} written bytes, a thread of the writer's own fsyncs the
 * active segment while appends go on, whatever the sync policy, so that a segment seal (which
 * forces the segment on the appending thread) finds little left to write.
 *
 * <p><b>Dictionary.</b> Unless {@link QueueOptions#dictionaryBytes} is 0, the writer keeps a copy
 * of the first {@link QueueOptions#dictionarySamples} bodies, trains a zstd dictionary from them
 * (inline, once: about 70 ms for 1,000 job documents of 1 KB on one core), and from then on
 * compresses records one by one with it. The dictionary is the first block of every segment whose
 * blocks use it: when it is ready, a segment that already holds blocks is sealed early and the next
 * one starts with it; every later segment starts with it too. A queue reopened takes the dictionary
 * back from its newest segment, so it is trained once per queue.
 *
 * <p><b>LZ4 appends.</b> While {@link #lz4Appends(boolean)} is on (a shard catching up with a
 * backlog), new blocks are LZ4-compressed whole even when the queue has a dictionary: about a fifth
 * of zstd's CPU per record, for about 1.8x the bytes. Segments still start with the dictionary;
 * {@link #lz4Bytes} says how many bytes of each segment's blocks after it are LZ4 blocks, so that
 * the space reclamation can copy their records into blocks of the dictionary later.
 */
public final class QueueWriter {

  private final ReentrantLock lock = new ReentrantLock();

  /** The last records appended, for tailers close behind (see {@link RecentRecords}). */
  final RecentRecords recent = new RecentRecords();

  private final BlockBuilder builder = new BlockBuilder();
  private final SegmentAppender appender;
  private final QueueOptions options;
  private final QueueCounters counters;
  private final AppendSignal signal;
  private GroupCommit commit;
  private long lastAssigned;
  private volatile long lastWritten;
  private long openBlockSegment;

  /**
   * The active segment and its length at open: a close that finds them unchanged wrote nothing and
   * adds no mark (a read-only use of the queue leaves its files as they were).
   */
  private final long openedSegment;

  private final long openedEnd;

  /** The segment of the last sync mark ({@link #markDurable}) and the length it claimed. */
  private long markedSegment;

  private long markedEnd;

  private long openBlockOffset;

  /** Records mode: bytes the open block may take from its offset (to the end of its last page). */
  private int openBlockCapacity;

  /**
   * Finished blocks not written yet: blocks of one page are written together, up to {@code
   * blockSize} bytes at a time, so page-sized blocks cost no more system calls than the old 8 KiB
   * ones. Their records become readable when they are written: when the pending bytes reach {@code
   * blockSize}, or on {@link #flush}, {@link #awaitDurable} or {@link #sync}, as an open block's
   * do.
   */
  private final PendingBlocks pending = new PendingBlocks();

  private IOException failure;
  private boolean closed;

  /** Open blocks discarded after a write failed for lack of space. */
  private volatile long discards;

  /** Background fsyncs every {@code bytesPerSync}; null when that is 0. */
  private final BackgroundSync writeback;

  /**
   * The dictionary new blocks use, or null; the segment whose first block it is, or -1. Written
   * with the lock held; read without it by {@link #precompress}.
   */
  private volatile RecordDictionary dictionary;

  private long dictionarySegment = -1;

  /** Whether new blocks are LZ4 blocks even with a dictionary ({@link #lz4Appends(boolean)}). */
  private volatile boolean lz4Appends;

  /**
   * Per segment written to since open, the bytes of LZ4 blocks written after its dictionary (an
   * entry only for segments that have any).
   */
  private final java.util.Map<Long, Long> lz4Bytes = new java.util.concurrent.ConcurrentHashMap<>();

  /** Bodies kept to train the dictionary; null when none are wanted. */
  private DictionarySamples samples;

  /** Compresses bodies ahead of their append ({@link #precompress}). */
  private final Precompressor precompressor =
      new Precompressor(io.docstore.io.ParallelChunks.helpersForCores());

  QueueWriter(
      SegmentAppender appender,
      QueueOptions options,
      QueueCounters counters,
      AppendSignal signal,
      long lastSequence) {
    this.appender = appender;
    this.options = options;
    this.counters = counters;
    this.signal = signal;
    this.lastAssigned = lastSequence;
    this.lastWritten = lastSequence;
    this.openedSegment = appender.segment();
    this.openedEnd = appender.position();
    this.writeback =
        options.bytesPerSync() == 0 ? null : new BackgroundSync(options.bytesPerSync());
  }

  /**
   * Lock held, after a write of {@code bytes}: starts a background fsync every {@code
   * bytesPerSync}.
   */
  private void wrote(long bytes) {
    if (writeback != null) {
      writeback.wrote(bytes, commit);
    }
  }

  void attach(GroupCommit commit) {
    this.commit = commit;
  }

  /**
   * At open: the dictionary of the queue's newest segment ({@code inSegment} the active segment if
   * it starts with it, else -1), or null to train one from the next bodies appended.
   */
  void startDictionary(RecordDictionary found, long inSegment) {
    if (options.dictionaryBytes() == 0) {
      return;
    }
    dictionary = found;
    dictionarySegment = found == null ? -1 : inSegment;
    samples =
        found == null
            ? new DictionarySamples(options.dictionarySamples(), options.dictionaryBytes())
            : null;
  }

  /**
   * Lock held (the writer's, or a bulk load's): a body for the dictionary's training while one is
   * wanted; the dictionary is trained with the last one wanted.
   */
  void sample(byte[] body, int off, int len) {
    if (samples == null || !samples.wanted()) {
      return;
    }
    RecordDictionary d = samples.add(body, off, len);
    if (d != null) {
      dictionary = d;
    }
  }

  /**
   * Lock held, before a block is addressed: takes a trained dictionary once ready, and makes sure
   * the active segment starts with it, so that the next block may use it. A full disk leaves the
   * block to LZ4 and tries again at the next block; any other failure is sticky.
   */
  private void prepareDictionary() throws IOException {
    if (dictionary == null) {
      return;
    }
    try {
      startSegmentWithDictionary();
    } catch (NoSpaceException e) {
      // The next block goes without the dictionary, wherever the appender now stands: if the seal
      // went through but the next segment could not be created, prepare() says so (not sticky).
      builder.useDictionary(null);
      appender.prepare();
      return;
    } catch (IOException | RuntimeException e) {
      failure = e instanceof IOException io ? io : new IOException(e);
      throw e;
    }
    builder.useDictionary(lz4Appends ? null : dictionary);
  }

  /** Where the next block goes: the end of the active segment plus the blocks pending. */
  private long tail() {
    return appender.position() + pending.length();
  }

  /**
   * Lock held: writes the pending blocks with one system call and publishes them. A full disk
   * discards them (their sequences are handed out again, not sticky); any other failure is sticky.
   */
  private void writePending() throws IOException {
    if (pending.isEmpty()) {
      return;
    }
    int bytes = pending.length();
    long last =
        Math.max(pending.lastSequence(), lastWritten); // padding blocks alone hold no record
    try {
      appender.write(pending.buffer(), pending.crcs(), 0, pending.count(), last);
    } catch (NoSpaceException e) {
      // The appender cut the segment back: forget the blocks and hand their sequences out again.
      pending.clear();
      lastAssigned = lastWritten;
      discards++;
      counters.noSpaceFailures.increment();
      throw e;
    } catch (IOException | RuntimeException e) {
      failure = e instanceof IOException io ? io : new IOException(e);
      throw e;
    }
    wrote(bytes);
    counters.blocks.add(pending.count());
    counters.rawBytes.add(pending.rawBytes());
    counters.compressedBlocks.add(pending.compressed());
    pending.clear();
    lastWritten = last;
    signal.signal();
  }

  /**
   * Lock held: writes the open block, if any, and every pending one: all appended records become
   * readable.
   */
  private void writeAll() throws IOException {
    if (!builder.isEmpty()) {
      writeBlock(-1);
    }
    writePending();
  }

  /**
   * Lock held, before a block of records stored one by one is addressed: pads to the page's end
   * with a padding block if its first record (of stored cost {@code cost}) would not fit in the
   * rest of the page ({@link PageLayout#gapBefore}), so the block does not straddle two pages.
   */
  private void alignFor(int cost) {
    int gap = PageLayout.gapBefore(tail(), cost, options.segmentSize());
    if (gap > 0) {
      ByteBuffer pad = BlockBuilder.paddingBlock(gap, lastAssigned + 1);
      pending.add(pad, pad.getInt(BlockFormat.CRC), 0, 0, false);
    }
  }

  /**
   * Lock held, before a block is addressed: if the active segment was forced further than the last
   * sync mark in it says, adds a sync mark claiming that length (at most one per force). After a
   * power loss recovery tells by the marks that survived whether damage lies before the durable
   * point (corruption) or after it (pages written back out of order: a torn tail).
   */
  private void markDurable(long nextSequence) {
    long forcedEnd = appender.forcedEnd();
    if (appender.segment() != markedSegment) {
      markedSegment = appender.segment();
      markedEnd = SegmentFormat.HEADER_LENGTH; // forced at creation; claiming it says nothing
    }
    if (forcedEnd > markedEnd) {
      ByteBuffer mark = BlockBuilder.markBlock(forcedEnd, nextSequence);
      pending.add(mark, mark.getInt(BlockFormat.CRC), 0, 0, false);
      markedEnd = forcedEnd;
    }
  }

  /** Lock held: the dictionary once trained, else null. */
  RecordDictionary dictionary() {
    return dictionary;
  }

  /**
   * Lock held, dictionary ready: writes it as the first block of the active segment unless that
   * segment starts with it already; a segment holding blocks without it is sealed first, so the
   * dictionary goes first in the next one. Its sequence field is the next record's.
   */
  private void startSegmentWithDictionary() throws IOException {
    if (dictionarySegment == appender.segment()) {
      return;
    }
    writePending();
    if (!appender.empty()) {
      appender.roll();
      appender.prepare();
    }
    ByteBuffer block = BlockBuilder.dictionaryBlock(dictionary, lastWritten + 1);
    int length = block.remaining();
    appender.writeDictionary(block, block.getInt(BlockFormat.CRC), dictionary);
    wrote(length);
    counters.blocks.increment();
    dictionarySegment = appender.segment();
  }

  /** Highest sequence in a written (readable) block. */
  long lastWritten() {
    return lastWritten;
  }

  /**
   * Buffers a record into the open block and returns its sequence (previous + 1, the first is 1)
   * and address. Not yet readable nor durable: see {@link #flush} and {@link #awaitDurable}.
   *
   * @param body laid out for {@code op} as {@link RecordBody} says (for a PUT, the document)
   * @throws IllegalArgumentException for a negative id or a body over {@code maxBodyBytes}, a
   *     DELETE with a body, or a body too short for its op
   */
  public Appended append(long id, Op op, long acceptedAtMillis, byte[] body) throws IOException {
    return append(id, op, acceptedAtMillis, body, null);
  }

  /**
   * Each body of {@code bodies} (null for none) as the writer's current dictionary would store it,
   * compressed now on the calling thread and, for a large batch, helper threads: outside the
   * writer's lock, so that concurrent writers compress in parallel and {@link #append} with the
   * result only copies. All null while the queue has no dictionary. Thread-safe.
   */
  public StoredBody[] precompress(java.util.List<byte[]> bodies) {
    return precompressor.compress(lz4Appends ? null : dictionary, bodies);
  }

  /**
   * Turns LZ4 appends on or off: while on, the blocks begun from then on are LZ4-compressed whole
   * even when the queue has a dictionary, and {@link #precompress} compresses nothing. Readers read
   * either kind; the block open when it changes keeps its kind.
   */
  public void lz4Appends(boolean on) {
    lz4Appends = on;
  }

  /** Whether every block of segment {@code number} was written by this writer (since open). */
  boolean wroteWhole(long number) {
    return number > openedSegment
        || (number == openedSegment && openedEnd == SegmentFormat.HEADER_LENGTH);
  }

  /** Whether LZ4 appends are on. */
  public boolean lz4Appends() {
    return lz4Appends;
  }

  /**
   * Bytes of LZ4 blocks that this writer wrote to segment {@code number} after its dictionary since
   * the queue opened (0 if none, or for a segment it did not write to).
   */
  public long lz4Bytes(long number) {
    return lz4Bytes.getOrDefault(number, 0L);
  }

  /**
   * {@link #append} with the body's stored bytes made ahead: {@code stored} is {@code body} as
   * {@link #precompress} made it, or, for a RELOCATED record of the space reclamation, the rest
   * (the original record's body, after the relocation's fixed part) as the original's block stores
   * it. The bytes are copied when they fit this writer's dictionary, not compressed again (see
   * {@link BlockBuilder#stage(byte[], StoredBody)} and {@link BlockBuilder#stageRelocated}).
   *
   * @param stored null, or the body (the rest, for RELOCATED) as stored
   */
  public Appended append(long id, Op op, long acceptedAtMillis, byte[] body, StoredBody stored)
      throws IOException {
    Objects.requireNonNull(body, "body");
    validate(id, op, body.length, options.maxBodyBytes());
    lock.lock();
    try {
      checkUsable();
      int blockSize = options.blockSize();
      if (builder.isEmpty()) {
        appender.prepare();
        prepareDictionary();
      }
      builder.forgetStaged();
      int cost = stage(op, body, stored);
      if (cost < 0
          ? !builder.fits(body.length, blockSize)
          : !builder.fitsStored(cost, openBlockCapacity)) {
        writeBlock(cost);
        appender.prepare();
        prepareDictionary();
        cost = stage(op, body, stored);
      }
      if (builder.isEmpty()) {
        markDurable(lastAssigned + 1);
        if (cost >= 0) {
          alignFor(cost);
        }
        openBlockSegment = appender.segment();
        openBlockOffset = tail();
        openBlockCapacity = cost < 0 ? 0 : PageLayout.capacityAt(openBlockOffset, cost, blockSize);
      }
      long sequence = lastAssigned + 1;
      int index = builder.add(sequence, id, acceptedAtMillis, op.code, body);
      lastAssigned = sequence;
      counters.appends.increment();
      counters.bodyBytes.add(body.length);
      long address = Address.of(openBlockSegment, openBlockOffset, index);
      recent.add(sequence, id, address, op, acceptedAtMillis, body);
      sample(body, 0, body.length);
      if (cost < 0
          ? builder.full(blockSize)
          : openBlockCapacity - builder.blockLength() < PageLayout.MIN_ROOM) {
        writeBlock(-1);
      }
      return new Appended(sequence, address);
    } finally {
      lock.unlock();
    }
  }

  /** Lock held: prepares a record's body for the open block (see {@link BlockBuilder#stage}). */
  private int stage(Op op, byte[] body, StoredBody stored) {
    return op == Op.RELOCATED ? builder.stageRelocated(body, stored) : builder.stage(body, stored);
  }

  /**
   * Appends a document's GROUPS record ({@code groups}, see {@link RecordBody#groups}) and then the
   * document itself ({@code op} PUT or PUT_EXPIRING), at consecutive sequences: no other append
   * comes between them, so the document's record commits its projections (a reader of the queue
   * takes the projections only together with the record that follows them).
   *
   * @return the document's sequence and address, and the GROUPS record's address
   */
  public Appended[] appendWithGroups(
      long id, long acceptedAtMillis, byte[] groups, Op op, byte[] body) throws IOException {
    return appendWithGroups(id, acceptedAtMillis, groups, op, body, null);
  }

  /**
   * {@link #appendWithGroups} with the document's body as {@link #precompress} made it (or null).
   */
  public Appended[] appendWithGroups(
      long id, long acceptedAtMillis, byte[] groups, Op op, byte[] body, StoredBody stored)
      throws IOException {
    if (!op.stores()) {
      throw new IllegalArgumentException("projections go with a PUT or PUT_EXPIRING, not " + op);
    }
    validate(id, Op.GROUPS, groups.length, options.maxBodyBytes());
    validate(id, op, body.length, options.maxBodyBytes());
    lock.lock();
    try {
      Appended g = append(id, Op.GROUPS, acceptedAtMillis, groups);
      return new Appended[] {append(id, op, acceptedAtMillis, body, stored), g};
    } finally {
      lock.unlock();
    }
  }

  /** Appends made by {@link #appendTogether}; may throw what {@link #append} throws. */
  @FunctionalInterface
  public interface Appends<T> {
    T run() throws IOException;
  }

  /**
   * Runs {@code appends} (calls of {@link #append} and {@link #appendWithGroups} on this writer)
   * with the writer's lock held: their records get consecutive sequences, with no other append
   * between them. For a run that a record before it describes (a SOURCE record, see {@link
   * RecordBody#source}).
   */
  public <T> T appendTogether(Appends<T> appends) throws IOException {
    lock.lock();
    try {
      return appends.run();
    } finally {
      lock.unlock();
    }
  }

  /** What a body of another kind than PUT or DELETE may hold beyond {@code maxBodyBytes}. */
  private static final int FIXED_ALLOWANCE = BlockFormat.RELOCATED_FIXED + 8;

  /**
   * The most entries a SOURCE body ({@link RecordBody#source}) may hold in a queue whose documents
   * are at most {@code maxBodyBytes}: a longer run of the update log takes several SOURCE records.
   */
  public static int maxSourceEntries(int maxBodyBytes) {
    return Math.max(1, (maxBodyBytes + FIXED_ALLOWANCE - BlockFormat.SOURCE_MIN) / 16);
  }

  /**
   * The checks of {@link #append}, shared with {@link BulkAppender}. The body limit is on the
   * document: a body of another kind than PUT may exceed {@code maxBodyBytes} by its fixed part
   * (expiry, original sequence and address; see {@link RecordBody}).
   */
  static void validate(long id, Op op, int bodyLength, int maxBodyBytes) {
    Objects.requireNonNull(op, "op");
    if (id < 0) {
      throw new IllegalArgumentException("document id must be >= 0, got " + id);
    }
    int fixed = op == Op.PUT || op == Op.DELETE ? 0 : FIXED_ALLOWANCE;
    if (bodyLength > maxBodyBytes + fixed) {
      throw new IllegalArgumentException(
          "body of "
              + bodyLength
              + " bytes exceeds the maximum of "
              + maxBodyBytes
              + " bytes (maxBodyBytes) for document "
              + id);
    }
    if (op == Op.DELETE && bodyLength != 0) {
      throw new IllegalArgumentException(
          "a DELETE carries no body, got " + bodyLength + " bytes for document " + id);
    }
    String bad = BlockFormat.invalidRecord(op.code, bodyLength);
    if (bad != null) {
      throw new IllegalArgumentException("document " + id + ": " + bad);
    }
  }

  /**
   * Starts a bulk load: takes the lock (held by the calling thread until {@link #bulkEnd}) and
   * writes the open block, so the bulk load's blocks follow every earlier append.
   */
  BulkAppender bulk(int threads, BulkAppender.Sink sink) throws IOException {
    Objects.requireNonNull(sink, "sink");
    lock.lock();
    try {
      checkUsable();
      writeAll();
      return new BulkAppender(this, options, threads, sink, lastAssigned);
    } catch (IOException | RuntimeException e) {
      lock.unlock();
      throw e;
    }
  }

  /**
   * Bulk load, lock held: writes blocks {@code from..} of {@code blocks} at the tail, as many as go
   * to the active segment, with one write; publishes them, sets their addresses and returns the
   * index after the last one written. A block starts in the active segment only while the segment
   * is below its configured size, as for ordinary appends, so a run ends where the segment rolls. A
   * failure (a full disk too) makes the writer refuse further writes until the queue is reopened.
   */
  int writeEncodedBlocks(EncodedBlocks blocks, int from) throws IOException {
    checkUsable();
    try {
      appender.prepare();
      if (blocks.dictionary != null) {
        if (blocks.dictionary != dictionary) {
          throw new IllegalStateException(
              "bulk blocks encoded with another dictionary than the writer's");
        }
        startSegmentWithDictionary();
      }
      long segmentSize = options.segmentSize();
      alignRun(blocks.pageOffset[from], segmentSize);
      long segment = appender.segment();
      long offset = appender.position();
      int to = from;
      long end = offset;
      while (to < blocks.count && (to == from || end < segmentSize)) {
        blocks.address[to] = Address.of(segment, end, 0);
        end += blocks.length(to);
        to++;
      }
      int runBytes = blocks.start[to] - blocks.start[from];
      appender.write(
          ByteBuffer.wrap(blocks.data, blocks.start[from], runBytes),
          blocks.crc,
          from,
          to,
          blocks.lastSequence[to - 1]);
      wrote(runBytes);
      for (int i = from; i < to; i++) {
        counters.appends.add(blocks.records[i]);
        counters.bodyBytes.add(blocks.bodyBytes[i]);
        counters.blocks.increment();
        counters.rawBytes.add(blocks.rawLength[i]);
        if (blocks.length(i) - BlockFormat.HEADER_LENGTH < blocks.rawLength[i]) {
          counters.compressedBlocks.increment();
        }
      }
      lastWritten = blocks.lastSequence[to - 1];
      signal.signal();
      return to;
    } catch (IOException | RuntimeException e) {
      failure = e instanceof IOException io ? io : new IOException(e);
      throw e;
    }
  }

  /**
   * Bulk load, lock held: writes a padding block so that a run of blocks laid out by pages as if
   * they started at {@code pageOffset} in a page ({@link EncodedBlocks#pageOffset}) starts there;
   * nothing for an unaligned run, or near the segment's end (a padding block never makes it roll).
   */
  private void alignRun(int pageOffset, long segmentSize) throws IOException {
    if (pageOffset == EncodedBlocks.UNALIGNED) {
      return;
    }
    long at = appender.position();
    int gap = (int) Math.floorMod(pageOffset - at, (long) PageLayout.PAGE);
    if (gap > 0 && gap <= BlockFormat.HEADER_LENGTH) {
      gap += PageLayout.PAGE; // a padding block needs a header and a byte
    }
    if (gap == 0 || at + gap >= segmentSize) {
      return;
    }
    ByteBuffer pad = BlockBuilder.paddingBlock(gap, lastWritten + 1);
    appender.write(pad, pad.getInt(BlockFormat.CRC), lastWritten);
    wrote(gap);
    counters.blocks.increment();
  }

  /** Bulk load, lock held: fsyncs whatever the policy. */
  void bulkSync() throws IOException {
    checkUsable();
    commit.syncNow();
    markForced();
  }

  /**
   * After a force that covered everything written (a clean close, the end of a bulk load): writes a
   * sync mark claiming it and forces that too, so that a later recovery knows the whole segment was
   * durable and calls any damage in it corruption, never a torn tail. Nothing if the writer failed
   * or the last mark already says as much.
   */
  void markForced() throws IOException {
    lock.lock();
    try {
      if (failure != null
          || !builder.isEmpty()
          || !pending.isEmpty()
          || (appender.segment() == openedSegment && appender.position() == openedEnd)) {
        return;
      }
      markDurable(lastWritten + 1);
      if (!pending.isEmpty()) {
        writePending();
        commit.syncNow();
      }
    } finally {
      lock.unlock();
    }
  }

  /** Ends a bulk load: the next append follows {@code lastSequence}; releases the lock. */
  void bulkEnd(long lastSequence) {
    lastAssigned = lastSequence;
    lock.unlock();
  }

  /** Writes the open block: afterwards every appended record is readable by readers and tailers. */
  public void flush() throws IOException {
    lock.lock();
    try {
      checkUsable();
      writeAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * How many open blocks were discarded so far because their write failed for lack of space. Read
   * it before appending a batch and pass it to {@link #awaitDurable(long, long)}.
   */
  public long discards() {
    return discards;
  }

  /**
   * {@link #awaitDurable(long)} for records appended after {@link #discards()} returned {@code
   * discardsBefore}: throws {@link NoSpaceException} if a block was discarded since, because the
   * caller's records may have been among the discarded ones (and their sequence numbers handed out
   * again). Conservative: it may also fail a batch whose records were in fact written; such a batch
   * was not acknowledged and may still become visible, like a write whose answer was lost.
   */
  public void awaitDurable(long sequence, long discardsBefore) throws IOException {
    checkNotDiscarded(discardsBefore);
    awaitDurable(sequence);
    checkNotDiscarded(discardsBefore);
  }

  private void checkNotDiscarded(long discardsBefore) throws NoSpaceException {
    if (discards != discardsBefore) {
      throw new NoSpaceException(
          "No space left on device: a queue block write failed and the open block was "
              + "discarded; this batch is not acknowledged");
    }
  }

  /**
   * Returns once {@code sequence} is durable under the sync policy ({@code always}: fsynced, shared
   * with concurrent callers; {@code interval}: by the next periodic fsync; {@code none}: written to
   * the OS only). Writes the open block first if it holds the record.
   */
  public void awaitDurable(long sequence) throws IOException {
    if (sequence > lastWritten) {
      lock.lock();
      try {
        if (sequence > lastAssigned) {
          if (discards > 0) {
            throw new NoSpaceException(
                "No space left on device: sequence "
                    + sequence
                    + " was discarded with a block that could not be written");
          }
          throw new IllegalArgumentException(
              "sequence " + sequence + " was never appended (last is " + lastAssigned + ")");
        }
        if (sequence > lastWritten) {
          checkUsable();
          writeAll();
        }
      } finally {
        lock.unlock();
      }
    }
    commit.awaitDurable(sequence);
  }

  /** Writes the open block and fsyncs, whatever the policy. */
  public void sync() throws IOException {
    flush();
    commit.syncNow();
  }

  private void checkUsable() throws IOException {
    if (closed) {
      throw new IOException("queue is closed");
    }
    if (failure != null) {
      throw new IOException("an earlier write failed; reopen the queue to recover", failure);
    }
  }

  /**
   * Lock held, builder not empty: finishes the open block into the pending ones, and writes them
   * once they reach {@code blockSize} bytes (or the segment's size). A block of records stored one
   * by one is padded to the end of its page ({@link PageLayout#padAfter}) when the room after it
   * would be too small for a record or for the next one, whose stored cost is {@code nextCost} (-1
   * if unknown): the next block then starts on a page.
   */
  private void writeBlock(int nextCost) throws IOException {
    int pad =
        builder.recordsMode()
            ? PageLayout.padAfter(
                openBlockOffset + builder.blockLength(), nextCost, options.segmentSize())
            : 0;
    if (appender.segment() != openBlockSegment || tail() != openBlockOffset) {
      IllegalStateException e =
          new IllegalStateException(
              "block addressed at "
                  + openBlockSegment
                  + "/"
                  + openBlockOffset
                  + " but the segment is at "
                  + appender.segment()
                  + "/"
                  + tail());
      failure = new IOException(e);
      throw e;
    }
    boolean wholeBlock = !builder.recordsMode();
    int stored = builder.finishTo(pending.room(builder.finishedLength(pad)), pending.length(), pad);
    if (wholeBlock && dictionarySegment == openBlockSegment) {
      lz4Bytes.merge(openBlockSegment, (long) stored, Long::sum); // LZ4 appends, or a full disk
    }
    pending.added(
        stored,
        builder.lastCrc(),
        builder.lastSequence(),
        builder.lastRawLength(),
        stored - BlockFormat.HEADER_LENGTH < builder.lastRawLength());
    if (pending.length() >= options.blockSize() || tail() >= options.segmentSize()) {
      writePending();
    }
  }

  /** Writes the open block and marks the writer closed. The caller syncs and closes files. */
  void close() throws IOException {
    lock.lock();
    try {
      if (closed) {
        return;
      }
      try {
        if (failure == null) {
          writeAll();
        }
        closed = true;
        builder.close(); // frees the compression context (native memory)
        precompressor.close();
      } finally {
        if (writeback != null) {
          writeback.close(); // the fsync in flight ends first: the queue closes the files next
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /** Whether a write failed (then close must not fsync: the tail is unknown). */
  boolean failed() {
    lock.lock();
    try {
      return failure != null;
    } finally {
      lock.unlock();
    }
  }
}
