package io.docstore.queue;

import io.docstore.io.CorruptionException;
import io.docstore.queue.block.BlockReader;
import io.docstore.queue.block.DecodedBlock;
import io.docstore.queue.format.Address;
import io.docstore.queue.format.BlockFormat;
import io.docstore.queue.format.SegmentFormat;
import io.docstore.queue.segment.QueueCounters;
import io.docstore.queue.segment.SegmentInfo;
import io.docstore.queue.segment.SegmentSet;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * Iterates records in sequence order across segments, from a starting sequence, and waits for new
 * ones without busy-waiting (woken by the writer each time a block becomes readable).
 *
 * <p>A record the writer has written (readable) and still holds among its recent ones ({@link
 * RecentRecords}) is taken from there, not read back from the file: a tailer close behind the
 * writer (a store's indexer) neither reads nor decodes the block just written. The file position
 * follows along (the block of the last record taken), so a record no longer held there is read from
 * its file, at the cost of at most one block read again.
 *
 * <p>Not thread-safe: one consumer per tailer. Any number of tailers may run concurrently with the
 * writer and with readers.
 */
public final class QueueTailer implements java.io.Closeable {

  private final SegmentSet segments;
  private final QueueCounters counters;
  private final AppendSignal signal;
  private final BlockReader reader;
  private final DecodedBlock block = new DecodedBlock();
  private SegmentInfo segment;

  /** Offset of the next block to read in {@link #segment}. */
  private long nextOffset;

  /** Next index to return from {@link #block}; equal to its count when used up. */
  private int index;

  private long nextSequence;
  private boolean closed;

  /** The writer whose recent records this tailer takes; null to read only files. */
  private final QueueWriter writer;

  private long reclaimedThrough;

  /**
   * @param before the address of a record before {@code fromSequence} (where the search for it may
   *     start), or 0
   */
  QueueTailer(
      SegmentSet segments,
      QueueCounters counters,
      AppendSignal signal,
      int expectedBlockBytes,
      long fromSequence,
      long before,
      QueueWriter writer)
      throws IOException {
    this.writer = writer;
    this.segments = segments;
    this.counters = counters;
    this.signal = signal;
    this.reader = new BlockReader(expectedBlockBytes);
    this.nextSequence = Math.max(1, fromSequence);
    this.segment = segments.forSequence(nextSequence);
    this.nextOffset = SegmentFormat.HEADER_LENGTH;
    if (before > 0
        && segment != null
        && !segment.reclaimed()
        && Address.segment(before) == segment.number()) {
      // The block of a record before the start: no block before it can hold the start.
      nextOffset = Math.max(nextOffset, Address.blockOffset(before));
    }
    stepOverReclaimed();
    skipToSequence();
  }

  /**
   * In a hollow segment, the next sequence is the one after it: its records were reclaimed (the
   * sequences a tailer hands on are then not dense; {@link #reclaimedThrough} says where they were
   * not).
   */
  private void stepOverReclaimed() {
    if (segment != null && segment.reclaimed() && segment.lastSequence() >= nextSequence) {
      nextSequence = segment.lastSequence() + 1;
      reclaimedThrough = segment.lastSequence();
    }
  }

  /**
   * The last sequence of the newest hollow segment this tailer stepped over, or 0: records up to it
   * that were not handed on were reclaimed, not lost.
   */
  public long reclaimedThrough() {
    return reclaimedThrough;
  }

  /** Skips whole blocks before the start sequence by their headers alone, without decompressing. */
  private void skipToSequence() throws IOException {
    ByteBuffer header = ByteBuffer.allocate(BlockFormat.HEADER_LENGTH);
    while (nextOffset + BlockFormat.HEADER_LENGTH <= segment.blocksEnd()) {
      header.clear();
      while (header.hasRemaining()) {
        if (segment.channel().read(header, nextOffset + header.position()) < 0) {
          return;
        }
      }
      long first = header.getLong(BlockFormat.FIRST_SEQUENCE);
      int count = Short.toUnsignedInt(header.getShort(BlockFormat.RECORD_COUNT));
      int stored = header.getInt(BlockFormat.STORED_LENGTH);
      if (first + count > nextSequence || stored <= 0) {
        return;
      }
      nextOffset += BlockFormat.HEADER_LENGTH + stored;
    }
  }

  /** The next record if one is readable now, else null. */
  public QueueRecord poll() throws IOException {
    if (closed) {
      throw new IOException("tailer is closed");
    }
    if (writer != null && index >= block.count()) {
      if (nextSequence > writer.lastWritten()) {
        return null; // nothing new in the files either: the writer is the only one appending
      }
      QueueRecord r = writer.recent.get(nextSequence);
      if (r != null) {
        follow(r.address());
        if (!segment.reclaimed()) {
          nextSequence++;
          return r;
        }
        stepOverReclaimed(); // reclaimed since it was written: on to the next segment's files
      }
    }
    while (true) {
      while (index < block.count()) {
        int i = index++;
        long seq = block.firstSequence() + i;
        if (seq >= nextSequence) {
          nextSequence = seq + 1;
          return toRecord(block, i, Address.of(segment.number(), block.offset(), i));
        }
      }
      if (!advance()) {
        return null;
      }
    }
  }

  /**
   * Moves the file position to the block holding {@code address}, as used up: if the next record is
   * not among the writer's recent ones, that block is read again and its records before {@link
   * #nextSequence} skipped.
   */
  private void follow(long address) throws IOException {
    long number = Address.segment(address);
    if (number != segment.number()) {
      SegmentInfo s = segments.get(number);
      if (s == null) {
        throw new IOException(
            "the writer's record "
                + Address.toString(address)
                + " names segment "
                + number
                + ", which this tailer cannot find");
      }
      segment = s;
    }
    nextOffset = Address.blockOffset(address);
    index = block.count();
  }

  /** Loads the next block into {@link #block}; false if none is readable yet. */
  private boolean advance() throws IOException {
    long end = segment.blocksEnd();
    if (nextOffset < end) {
      reader.read(segment.channel(), segment.path(), nextOffset, end, block);
      counters.blockReads.increment();
      if (block.firstSequence() > nextSequence) {
        long at = block.offset();
        long first = block.firstSequence();
        block.clear();
        throw new CorruptionException(
            segment.path(),
            at,
            "block starts at sequence "
                + first
                + " but the tailer expects "
                + nextSequence
                + " next: a block header before it is damaged");
      }
      index = 0;
      nextOffset = block.end();
      return true;
    }
    if (!segment.sealed()) {
      return false;
    }
    SegmentInfo next = segments.get(segment.number() + 1);
    if (next == null) {
      return false;
    }
    segment = next;
    nextOffset = SegmentFormat.HEADER_LENGTH;
    stepOverReclaimed();
    return advance();
  }

  /** The next record, waiting up to the timeout for one to be appended; null on timeout. */
  public QueueRecord next(long timeout, TimeUnit unit) throws IOException, InterruptedException {
    long nanos = unit.toNanos(timeout);
    while (true) {
      long seen = signal.version();
      QueueRecord r = poll();
      if (r != null) {
        return r;
      }
      nanos = signal.await(seen, nanos);
      if (nanos <= 0) {
        return poll();
      }
    }
  }

  @Override
  public void close() {
    closed = true;
  }

  static QueueRecord toRecord(DecodedBlock block, int i, long address) {
    Op op = Op.of(block.op(i));
    return new QueueRecord(
        address,
        block.id(i),
        block.firstSequence() + i,
        op,
        block.acceptedAtMillis(i),
        block.body(i));
  }
}
