package io.docstore.queue.block;

import static io.docstore.queue.format.BlockFormat.*;

import io.docstore.io.CorruptionException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * One record read where its stored block lies (a segment's mapping or a read buffer), for a block
 * {@link BlockReader#inPlace} accepts: stored uncompressed with record checksums, or records stored
 * one by one. {@link #read} checks the record's bounds and own checksum and, for a compressed body,
 * decompresses just that body; the fields then describe the record until the next read. A body
 * stored as it is stays where it is ({@link #buffer} is the block's buffer).
 *
 * <p>Not thread-safe: one per reading thread. Allocates nothing per read once its body buffer has
 * grown to the largest body read.
 */
public final class InPlaceRecord {

  /** The segment's dictionaries, by id (read from its first block and kept by the caller). */
  @FunctionalInterface
  public interface Dictionaries {
    RecordDictionary get(int id) throws IOException;
  }

  private final ZstdRecords zrecord = new ZstdRecords();
  private final int reserve;
  private ByteBuffer body = ByteBuffer.allocateDirect(16 * 1024);

  public long id;
  public long sequence;
  public long acceptedAtMillis;

  /** The record's op code (one of {@code BlockFormat.OP_*}). */
  public byte op;

  /** Where the body is: the block's buffer, or this reader's own when it was decompressed. */
  public ByteBuffer buffer;

  public int bodyOffset;
  public int bodyLength;

  /** Whether the body was decompressed (into this reader's buffer, after {@code reserve} bytes). */
  public boolean decompressed;

  /**
   * @param reserve bytes left free before a decompressed body (a caller's header for a cache slot)
   */
  public InPlaceRecord(int reserve) {
    this.reserve = reserve;
  }

  /**
   * This reader's own buffer, holding at least {@code length} bytes (for a caller copying a record
   * in).
   */
  public ByteBuffer body(int length) {
    if (body.capacity() < length) {
      body = ByteBuffer.allocateDirect(Math.max(length, body.capacity() * 2));
    }
    return body;
  }

  /**
   * Reads record {@code index} of the block whose header is at {@code base} of {@code src} (the
   * whole block present, header checked, accepted by {@link BlockReader#inPlace}); the caller has
   * checked {@code index} against the block's record count.
   *
   * @throws CorruptionException naming the file and the block's offset if the record fails its
   *     checks or its body does not decompress
   */
  public void read(
      ByteBuffer src, int base, int index, Path file, long offset, Dictionaries dictionaries)
      throws IOException {
    sequence = src.getLong(base + FIRST_SEQUENCE) + index;
    if (BlockReader.zstdRecords(src, base)) {
      zrecord.locate(src, base, index, file, offset);
      int at = zrecord.at();
      id = src.getLong(at + RECORD_ID);
      acceptedAtMillis = src.getLong(at + RECORD_ACCEPTED_AT);
      op = zrecord.op();
      bodyLength = zrecord.bodyLength();
      decompressed = !zrecord.storedPlain();
      if (!decompressed) {
        buffer = src;
        bodyOffset = at + ZRECORD_BODY;
        return;
      }
      int dictId = ZstdRecords.dictionaryId(src, base);
      buffer = body(reserve + bodyLength);
      bodyOffset = reserve;
      zrecord.body(
          src, dictId == 0 ? null : dictionaries.get(dictId), buffer, reserve, file, offset);
      return;
    }
    int count = Short.toUnsignedInt(src.getShort(base + RECORD_COUNT));
    int payload = base + HEADER_LENGTH;
    int rawLength = src.getInt(base + RAW_LENGTH);
    int start = RawRecords.start(src, payload, count, rawLength, index);
    int stop = start < 0 ? -1 : RawRecords.end(src, payload, count, rawLength, index, start);
    if (stop >= 0) {
      BlockReader.checkRecord(src, base, index, start, stop, file, offset);
    }
    int at = payload + start;
    byte o = stop < 0 ? -1 : src.get(at + RECORD_OP);
    int length = stop - start - RECORD_BODY;
    if (stop < 0 || invalidRecord(o, length) != null) {
      throw new CorruptionException(
          file,
          offset,
          "record "
              + index
              + " lies outside its block's payload,"
              + " has an unknown op code or is a delete with a body");
    }
    id = src.getLong(at + RECORD_ID);
    acceptedAtMillis = src.getLong(at + RECORD_ACCEPTED_AT);
    op = o;
    buffer = src;
    bodyOffset = at + RECORD_BODY;
    bodyLength = length;
    decompressed = false;
  }
}
