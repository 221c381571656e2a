package io.docstore.queue.block;

import static io.docstore.queue.format.BlockFormat.*;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A verified, decompressed block: its header fields and raw payload, with accessors for each
 * record. Filled by {@link BlockReader#read}; reusable (one per reading thread or tailer), so
 * nothing is allocated per read beyond what a caller copies out.
 *
 * <p>Invariant after a successful read: the offset table was checked (first start just after the
 * table, starts increasing, every record at least {@code RECORD_BODY} bytes, op codes valid), so
 * the accessors never read outside the payload.
 *
 * <p>Not thread-safe, except a block returned by {@link #copy()}, which is never mutated again and
 * may be shared (the block cache holds such copies).
 */
public final class DecodedBlock {

  byte[] raw = new byte[0];

  /** {@link #raw} as a buffer, kept in step when {@code raw} is replaced (see {@link #raw()}). */
  private ByteBuffer rawBuffer = ByteBuffer.wrap(raw);

  int rawLength;
  int count;
  long firstSequence;
  long offset;
  int storedLength;
  int crc;
  boolean compressed;
  boolean recordChecksums;
  boolean zstd;
  boolean dictionary;
  boolean padding;

  /** Records stored split (RELOCATED, segment version 8) in the block as stored. */
  int splitRecords;

  /** A sync mark's claim, else -1. */
  long syncedEnd = -1;

  public int count() {
    return count;
  }

  /** Holds no record from now on (after its reader found it could not be used). */
  public void clear() {
    count = 0;
  }

  public long firstSequence() {
    return firstSequence;
  }

  public long lastSequence() {
    return firstSequence + count - 1;
  }

  /** Offset of the block's header in its segment file. */
  public long offset() {
    return offset;
  }

  /** Offset just past the block: where the next block starts. */
  public long end() {
    return offset + HEADER_LENGTH + storedLength;
  }

  public int storedLength() {
    return storedLength;
  }

  public int rawLength() {
    return rawLength;
  }

  public int crc() {
    return crc;
  }

  public boolean compressed() {
    return compressed;
  }

  /**
   * Whether the block as stored compresses its records one by one with the segment's dictionary
   * (version 3).
   */
  public boolean zstd() {
    return zstd;
  }

  /**
   * How many RELOCATED records the block as stored keeps split, their fixed part apart from their
   * rest (segment version 8; {@link io.docstore.queue.format.BlockFormat#OP_RELOCATED_SPLIT}).
   */
  public int splitRecords() {
    return splitRecords;
  }

  /** Whether the block is the segment's dictionary (version 3): it holds no record. */
  public boolean dictionary() {
    return dictionary;
  }

  /** Whether the block only pads to the end of a page (version 3): it holds no record. */
  public boolean padding() {
    return padding;
  }

  /**
   * For a sync mark (version 4; it holds no record): the length of its segment that had been forced
   * to disk when it was written. -1 for any other block.
   */
  public long syncedEnd() {
    return syncedEnd;
  }

  /**
   * Whether the block as stored carries a checksum per record (uncompressed blocks of segment
   * version 2).
   */
  public boolean recordChecksums() {
    return recordChecksums;
  }

  int start(int i) {
    return BigEndian.getInt(raw, i * OFFSET_ENTRY);
  }

  int endOf(int i) {
    return i + 1 < count ? start(i + 1) : rawLength;
  }

  public long id(int i) {
    return BigEndian.getLong(raw, start(i) + RECORD_ID);
  }

  public long acceptedAtMillis(int i) {
    return BigEndian.getLong(raw, start(i) + RECORD_ACCEPTED_AT);
  }

  /** The record's op code (one of {@code BlockFormat.OP_*}). */
  public byte op(int i) {
    return raw[start(i) + RECORD_OP];
  }

  public int bodyLength(int i) {
    return endOf(i) - start(i) - RECORD_BODY;
  }

  /** Where record {@code i}'s body starts in {@link #raw()}. */
  public int bodyStart(int i) {
    return start(i) + RECORD_BODY;
  }

  /**
   * The raw payload as a (heap) buffer, absolute indices; valid until the next read into this
   * block.
   */
  public ByteBuffer raw() {
    if (rawBuffer.array() != raw) {
      rawBuffer = ByteBuffer.wrap(raw);
    }
    return rawBuffer;
  }

  /** A fresh copy of record {@code i}'s body. */
  public byte[] body(int i) {
    int from = start(i) + RECORD_BODY;
    return Arrays.copyOfRange(raw, from, endOf(i));
  }

  /** An independent copy holding exactly the payload, for caching. */
  public DecodedBlock copy() {
    DecodedBlock c = new DecodedBlock();
    c.raw = Arrays.copyOf(raw, rawLength);
    c.rawLength = rawLength;
    c.count = count;
    c.firstSequence = firstSequence;
    c.offset = offset;
    c.storedLength = storedLength;
    c.crc = crc;
    c.compressed = compressed;
    c.recordChecksums = recordChecksums;
    c.zstd = zstd;
    c.dictionary = dictionary;
    c.padding = padding;
    c.splitRecords = splitRecords;
    c.syncedEnd = syncedEnd;
    return c;
  }

  /** Checks the offset table and op codes; returns a description of the first problem, or null. */
  String validate() {
    int table = count * OFFSET_ENTRY;
    if (rawLength < table) {
      return "offset table of " + count + " entries does not fit in " + rawLength + " raw bytes";
    }
    int prev = table;
    for (int i = 0; i < count; i++) {
      int s = start(i);
      if (i == 0 ? s != table : s < prev + RECORD_BODY) {
        return "offset table entry " + i + " is " + s + " (previous record starts at " + prev + ")";
      }
      prev = s;
    }
    if (prev + RECORD_BODY > rawLength) {
      return "last record at " + prev + " overruns raw length " + rawLength;
    }
    for (int i = 0; i < count; i++) {
      String bad = invalidRecord(raw[start(i) + RECORD_OP], bodyLength(i));
      if (bad != null) {
        return "record " + i + ": " + bad;
      }
    }
    return null;
  }
}
