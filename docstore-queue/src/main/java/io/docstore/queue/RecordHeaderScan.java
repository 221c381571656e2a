package io.docstore.queue;

import static io.docstore.queue.format.BlockFormat.FIRST_SEQUENCE;
import static io.docstore.queue.format.BlockFormat.FLAGS;
import static io.docstore.queue.format.BlockFormat.FLAG_DICTIONARY;
import static io.docstore.queue.format.BlockFormat.FLAG_ZSTD_RECORDS;
import static io.docstore.queue.format.BlockFormat.HEADER_LENGTH;
import static io.docstore.queue.format.BlockFormat.RECORD_ACCEPTED_AT;
import static io.docstore.queue.format.BlockFormat.RECORD_BODY;
import static io.docstore.queue.format.BlockFormat.RECORD_COUNT;
import static io.docstore.queue.format.BlockFormat.RECORD_ID;

import io.docstore.io.CorruptionException;
import io.docstore.queue.block.BlockReader;
import io.docstore.queue.block.DecodedBlock;
import io.docstore.queue.block.StoredBody;
import io.docstore.queue.block.ZstdRecords;
import io.docstore.queue.format.Address;
import io.docstore.queue.format.SegmentFormat;
import io.docstore.queue.segment.SegmentInfo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The records of one segment in sequence order by their headers alone: sequence, address, ID, op
 * and acceptance time. In a block of records compressed one by one (segment version 3 on) each
 * record is checked against its own checksum and no body is decompressed; an older block (LZ4 or
 * uncompressed) is decoded whole, as a tailer would. What the space reclamation scans a victim
 * with: the headers and the index tell it which few records to keep, and it reads only those, by
 * address ({@link QueueReader#get}); decompressing every body of a segment that is mostly garbage
 * was a third of its CPU.
 *
 * <p>Not thread-safe: one scan per consumer. The segment must stay whole while it is scanned (the
 * space reclamation hollows only the segment it scans, after the scan).
 */
public final class RecordHeaderScan {

  private final SegmentInfo segment;
  private final BlockReader reader;
  private final ZstdRecords zrecord = new ZstdRecords();
  private final DecodedBlock decoded = new DecodedBlock();

  /** Bytes of the segment read with one system call: a victim is read in large runs. */
  private static final int WINDOW = 256 << 10;

  /** A run of the segment as stored, from file offset {@link #windowStart}. */
  private ByteBuffer window = ByteBuffer.allocateDirect(WINDOW).order(ByteOrder.BIG_ENDIAN);

  private long windowStart;
  private int windowLength;

  /**
   * The current block as stored (zstd records), at index {@link #base}; null when it was decoded
   * whole.
   */
  private ByteBuffer stored;

  private int base;

  private long blockOffset;
  private long nextOffset = SegmentFormat.HEADER_LENGTH;
  private long firstSequence;
  private long nextSequence;
  private int count;
  private int index;

  private long sequence;
  private long address;
  private long id;
  private Op op;
  private long acceptedAtMillis;
  private int storedLength;

  RecordHeaderScan(SegmentInfo segment, int expectedBlockBytes) {
    if (segment.reclaimed()) {
      throw new IllegalArgumentException(
          "segment " + segment.number() + " is hollow: its records were reclaimed");
    }
    this.segment = segment;
    this.reader = new BlockReader(expectedBlockBytes);
    this.nextSequence = segment.baseSequence();
  }

  /**
   * Moves to the next record; false at the end of the segment's readable blocks.
   *
   * @throws CorruptionException naming the file and the block's offset if a block or a record fails
   *     its checks
   */
  public boolean next() throws IOException {
    while (index >= count) {
      if (!nextBlock()) {
        return false;
      }
    }
    int i = index++;
    sequence = firstSequence + i;
    address = Address.of(segment.number(), blockOffset, i);
    if (stored != null) {
      zrecord.locate(stored, base, i, segment.path(), blockOffset);
      int at = zrecord.at();
      id = stored.getLong(at + RECORD_ID);
      acceptedAtMillis = stored.getLong(at + RECORD_ACCEPTED_AT);
      op = Op.of(zrecord.op());
      storedLength = zrecord.storedLength();
    } else {
      id = decoded.id(i);
      acceptedAtMillis = decoded.acceptedAtMillis(i);
      op = Op.of(decoded.op(i));
      storedLength = RECORD_BODY + decoded.bodyLength(i);
    }
    return true;
  }

  private boolean nextBlock() throws IOException {
    long end = segment.blocksEnd();
    if (nextOffset >= end) {
      return false;
    }
    blockOffset = nextOffset;
    int at = inWindow(blockOffset, HEADER_LENGTH, end);
    int total =
        BlockReader.storedBlockLength(window, at, end - blockOffset, segment.path(), blockOffset);
    at = inWindow(blockOffset, total, end);
    nextOffset = blockOffset + total;
    if (BlockReader.zstdRecords(window, at)) {
      stored = window;
      base = at;
      count = Short.toUnsignedInt(window.getShort(at + RECORD_COUNT));
      firstSequence = window.getLong(at + FIRST_SEQUENCE);
    } else {
      stored = null;
      reader.readStored(segment.channel(), segment.path(), blockOffset, end);
      reader.decodeStored(segment.channel(), segment.path(), blockOffset, decoded);
      count = decoded.count();
      firstSequence = decoded.firstSequence();
    }
    index = 0;
    if (count > 0) {
      if (firstSequence != nextSequence) {
        count = 0;
        throw new CorruptionException(
            segment.path(),
            blockOffset,
            "block starts at sequence "
                + firstSequence
                + " but the scan expects "
                + nextSequence
                + " next: a block header before it is damaged");
      }
      nextSequence = firstSequence + count;
    }
    return true;
  }

  /**
   * Walks the rest of the segment by block headers alone (nothing decoded) and returns the bytes of
   * its blocks that follow its dictionary block and are not records compressed one by one with it
   * (LZ4 blocks, or blocks stored as they are): what copying their records into blocks of the
   * dictionary would shrink. 0 for a segment without a dictionary. Ends the scan.
   *
   * @throws CorruptionException naming the file and the block's offset if a header is damaged
   */
  public long wholeBlockBytesAfterDictionary() throws IOException {
    long end = segment.blocksEnd();
    boolean afterDictionary = false;
    long bytes = 0;
    while (nextOffset < end) {
      long offset = nextOffset;
      int at = inWindow(offset, HEADER_LENGTH, end);
      int total = BlockReader.storedBlockLength(window, at, end - offset, segment.path(), offset);
      nextOffset = offset + total;
      int flags = window.get(at + FLAGS);
      if (flags == FLAG_DICTIONARY) {
        afterDictionary = true;
      } else if (afterDictionary
          && Short.toUnsignedInt(window.getShort(at + RECORD_COUNT)) > 0
          && flags != FLAG_ZSTD_RECORDS) {
        bytes += total;
      }
    }
    count = 0;
    index = 0;
    return bytes;
  }

  /**
   * Where bytes {@code [offset, offset + length)} of the segment are in {@link #window}, reading
   * from {@code offset} on (as much as the window holds, up to {@code end}) unless they are there.
   */
  private int inWindow(long offset, int length, long end) throws IOException {
    if (offset >= windowStart && offset + length <= windowStart + windowLength) {
      return (int) (offset - windowStart);
    }
    if (window.capacity() < length) {
      window = ByteBuffer.allocateDirect(length).order(ByteOrder.BIG_ENDIAN);
    }
    int want = (int) Math.min(window.capacity(), end - offset);
    window.clear().limit(want);
    windowStart = offset;
    windowLength = 0;
    while (window.hasRemaining()) {
      int n = segment.channel().read(window, offset + window.position());
      if (n < 0) {
        break;
      }
    }
    windowLength = window.position();
    if (windowLength < length) {
      throw new CorruptionException(
          segment.path(),
          offset,
          "file ends at "
              + (offset + windowLength)
              + " inside a block expected to reach "
              + (offset + length));
    }
    return 0;
  }

  public long sequence() {
    return sequence;
  }

  public long address() {
    return address;
  }

  public long id() {
    return id;
  }

  /** The record's own op (a RELOCATED record's original op is in its body). */
  public Op op() {
    return op;
  }

  public long acceptedAtMillis() {
    return acceptedAtMillis;
  }

  /**
   * Bytes the record takes in its block as stored (header and body; for a block compressed whole,
   * its uncompressed size): what relocating it writes again, about.
   */
  public int storedLength() {
    return storedLength;
  }

  /**
   * The current record's body as its block stores it, for a copy of it in a RELOCATED record
   * ({@link QueueWriter#append(long, Op, long, byte[], StoredBody)}): the whole stored body of a
   * PUT, PUT_EXPIRING or GROUPS record, or the rest of a RELOCATED record stored split; null for
   * other records and for records of blocks not stored one by one (their bodies are compressed
   * again when relocated).
   */
  public StoredBody storedRest() {
    if (stored == null) {
      return null;
    }
    boolean whole = op == Op.PUT || op == Op.PUT_EXPIRING || op == Op.GROUPS;
    if (!whole && !(op == Op.RELOCATED && zrecord.split())) {
      return null;
    }
    byte[] bytes = new byte[zrecord.restStored()];
    stored.get(zrecord.restAt(), bytes);
    return new StoredBody(ZstdRecords.dictionaryId(stored, base), bytes, zrecord.restLength());
  }
}
