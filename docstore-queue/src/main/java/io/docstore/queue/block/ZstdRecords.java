package io.docstore.queue.block;

import static io.docstore.queue.format.BlockFormat.*;

import io.docstore.io.Checksums;
import io.docstore.io.CorruptionException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * One record of a block whose records are compressed one by one ({@link
 * io.docstore.queue.format.BlockFormat#FLAG_ZSTD_RECORDS}), read where the stored block lies: a
 * segment's mapping or a read buffer. {@link #locate} checks the record's bounds and its own
 * checksum, so a reader of one record never trusts bytes it did not check and never reads outside
 * the block; {@link #body} then decompresses just that record's body.
 *
 * <p>Not thread-safe: one per reading thread. After {@link #locate} the accessors describe the
 * record until the next call.
 */
public final class ZstdRecords {

  /** Largest dictionary block a reader accepts. */
  public static final int MAX_DICTIONARY = 1 << 20;

  /** Reused for each record's checksum, so a read allocates nothing. */
  private final RecordChecksum checksum = new RecordChecksum();

  private int at;
  private int storedBody;
  private int bodyLength;
  private byte op;

  /** Bytes at the start of the stored body that are stored as they are ({@link #split}). */
  private int head;

  /** Absolute index of the record in the buffer given to {@link #locate}. */
  public int at() {
    return at;
  }

  /** The record's op code as readers see it (a split RELOCATED record is {@code OP_RELOCATED}). */
  public byte op() {
    return op;
  }

  /**
   * Whether the located record is a RELOCATED record stored split ({@link
   * io.docstore.queue.format.BlockFormat#OP_RELOCATED_SPLIT}): its fixed part as it is, then its
   * rest stored on its own.
   */
  public boolean split() {
    return head > 0;
  }

  /**
   * Where the located record's rest begins in the buffer given to {@link #locate}: the body as
   * stored after a split record's fixed part, or the whole stored body.
   */
  public int restAt() {
    return at + ZRECORD_BODY + head;
  }

  /** Stored bytes of the located record's rest (see {@link #restAt}). */
  public int restStored() {
    return storedBody - head;
  }

  /** Bytes of the located record's rest once decompressed. */
  public int restLength() {
    return bodyLength - head;
  }

  /** The body's length once decompressed. */
  public int bodyLength() {
    return bodyLength;
  }

  /** Bytes the located record takes in its block: its header and its body as stored. */
  public int storedLength() {
    return ZRECORD_BODY + storedBody;
  }

  /** Whether the body is stored as it is (it did not compress), at {@code at() + ZRECORD_BODY}. */
  public boolean storedPlain() {
    return storedBody == bodyLength;
  }

  /**
   * Finds record {@code index} of the block whose header is at {@code base} of {@code src} (header
   * checked, whole block in {@code src}) and checks it against its own checksum.
   *
   * @throws CorruptionException naming the file and the block's offset
   */
  public void locate(ByteBuffer src, int base, int index, Path file, long offset)
      throws CorruptionException {
    int count = Short.toUnsignedInt(src.getShort(base + RECORD_COUNT));
    int payload = base + HEADER_LENGTH;
    int stored = src.getInt(base + STORED_LENGTH);
    int crcs = ZSTD_TABLE + (count + 1) * OFFSET_ENTRY;
    int first = crcs + count * RECORD_CRC;
    int start = src.getInt(payload + ZSTD_TABLE + index * OFFSET_ENTRY);
    int end = src.getInt(payload + ZSTD_TABLE + (index + 1) * OFFSET_ENTRY);
    if ((index == 0 ? start != first : start < first)
        || end < start + ZRECORD_BODY
        || end > stored) {
      throw new CorruptionException(
          file, offset, "record " + index + " lies outside its block's payload");
    }
    long sequence = src.getLong(base + FIRST_SEQUENCE) + index;
    int expected = src.getInt(payload + crcs + index * RECORD_CRC);
    int actual = checksum.compute(src, payload + start, payload + end, sequence);
    if (actual != expected) {
      throw CorruptionException.checksum(file, offset, "record " + index, expected, actual);
    }
    at = payload + start;
    op = src.get(at + RECORD_OP);
    head = 0;
    if (op == OP_RELOCATED_SPLIT) {
      op = OP_RELOCATED;
      head = RELOCATED_FIXED;
    }
    bodyLength = src.getInt(at + ZRECORD_BODY_LENGTH);
    storedBody = end - start - ZRECORD_BODY;
    if (invalidRecord(op, bodyLength) != null
        || storedBody < head
        || restLength() < restStored()
        || bodyLength > MAX_PAYLOAD
        || (restStored() == 0 && restLength() != 0)) {
      throw new CorruptionException(
          file,
          offset,
          "record "
              + index
              + " has an unknown op code, a delete with a body"
              + " or a body length ("
              + bodyLength
              + ") its stored bytes ("
              + storedBody
              + ") cannot hold");
    }
  }

  /**
   * Decompresses the located record's body from {@code src} into {@code dst} at {@code dstOff}
   * ({@link #bodyLength} bytes), or copies it when stored plain.
   *
   * @throws CorruptionException if the body does not decompress to its length
   */
  public void body(
      ByteBuffer src, RecordDictionary d, ByteBuffer dst, int dstOff, Path file, long offset)
      throws CorruptionException {
    int from = at + ZRECORD_BODY;
    if (storedPlain()) {
      dst.put(dstOff, src, from, bodyLength);
      return;
    }
    if (d == null) {
      throw new CorruptionException(
          file, offset, "a record's body is stored compressed in a block without a dictionary");
    }
    dst.put(dstOff, src, from, head);
    if (d.decompress(src, from + head, restStored(), dst, dstOff + head, restLength()) < 0) {
      throw new CorruptionException(
          file,
          offset,
          "a record's body does not decompress to its "
              + bodyLength
              + " bytes with dictionary "
              + Integer.toHexString(d.id()));
    }
  }

  /**
   * The id of the dictionary the block at {@code base} of {@code src} was compressed with; 0 for
   * none (every body stored plain).
   */
  public static int dictionaryId(ByteBuffer src, int base) {
    return src.getInt(base + HEADER_LENGTH + ZSTD_DICT_ID);
  }

  /**
   * Reads and verifies the dictionary block of the segment open as {@code ch} (its first block) and
   * checks that it is dictionary {@code id}.
   *
   * @throws CorruptionException naming the file and offset if it is missing, damaged or another one
   */
  public static RecordDictionary load(FileChannel ch, Path file, int id) throws IOException {
    RecordDictionary d = first(ch, file, ch.size());
    long offset = io.docstore.queue.format.SegmentFormat.HEADER_LENGTH;
    if (d == null) {
      throw new CorruptionException(
          file,
          offset,
          "a block names zstd dictionary "
              + Integer.toHexString(id)
              + " but the segment's first block is not a dictionary block");
    }
    if (d.id() != id) {
      throw new CorruptionException(
          file,
          offset,
          "a block names zstd dictionary "
              + Integer.toHexString(id)
              + " but the segment's dictionary is "
              + Integer.toHexString(d.id()));
    }
    return d;
  }

  /**
   * The dictionary stored as the first block of the segment open as {@code ch}, verified; null if
   * the segment has no block below {@code end} or its first block is not a dictionary.
   *
   * @throws CorruptionException if the dictionary block fails its checksum
   */
  public static RecordDictionary first(FileChannel ch, Path file, long end) throws IOException {
    long offset = io.docstore.queue.format.SegmentFormat.HEADER_LENGTH;
    if (end < offset + HEADER_LENGTH) {
      return null;
    }
    ByteBuffer head = ByteBuffer.allocate(HEADER_LENGTH).order(ByteOrder.BIG_ENDIAN);
    readFully(ch, head, offset, file);
    int stored = head.getInt(STORED_LENGTH);
    if (head.get(FLAGS) != FLAG_DICTIONARY
        || head.getShort(RECORD_COUNT) != 0
        || stored <= 0
        || stored > MAX_DICTIONARY
        || head.getInt(RAW_LENGTH) != stored
        || offset + HEADER_LENGTH + stored > end) {
      return null;
    }
    ByteBuffer whole = ByteBuffer.allocate(HEADER_LENGTH + stored).order(ByteOrder.BIG_ENDIAN);
    readFully(ch, whole, offset, file);
    CRC32C crc = new CRC32C();
    crc.update(whole.array(), STORED_LENGTH, HEADER_LENGTH - STORED_LENGTH + stored);
    int actual = Checksums.mask((int) crc.getValue());
    int expected = whole.getInt(CRC);
    if (actual != expected) {
      throw CorruptionException.checksum(file, offset, "dictionary block", expected, actual);
    }
    byte[] bytes = new byte[stored];
    whole.get(HEADER_LENGTH, bytes);
    return new RecordDictionary(bytes);
  }

  private static void readFully(FileChannel ch, ByteBuffer b, long offset, Path file)
      throws IOException {
    b.clear();
    while (b.hasRemaining()) {
      if (ch.read(b, offset + b.position()) < 0) {
        throw new CorruptionException(file, offset, "file ends inside the dictionary block");
      }
    }
  }
}
