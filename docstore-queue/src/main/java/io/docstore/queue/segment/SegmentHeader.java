package io.docstore.queue.segment;

import static io.docstore.queue.format.SegmentFormat.*;

import io.docstore.io.Checksums;
import io.docstore.io.CorruptionException;
import io.docstore.io.UnsupportedFormatException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * A segment file's header: which segment it is, the sequence of its first record, and the format
 * version its blocks follow.
 *
 * <pre>
 * +----------+---------------------------+---------+----------------+----------------+-----------+
 * | magic u32| "docstore.segment" 16 B   | ver u32 | segment u64    | baseSeq u64    | crc u32   |  44 bytes
 * +----------+---------------------------+---------+----------------+----------------+-----------+
 * </pre>
 *
 * The crc is the masked CRC32C of the 40 bytes before it.
 */
public record SegmentHeader(long segment, long baseSequence, int version) {

  /** The header of a new segment, in the version this build writes. */
  public SegmentHeader(long segment, long baseSequence) {
    this(segment, baseSequence, VERSION);
  }

  public ByteBuffer encode() {
    ByteBuffer b = ByteBuffer.allocate(HEADER_LENGTH);
    b.putInt(MAGIC, MAGIC_VALUE);
    b.put(NAME, FORMAT_NAME_BYTES);
    b.putInt(HEADER_VERSION, version);
    b.putLong(SEGMENT_NUMBER, segment);
    b.putLong(BASE_SEQUENCE, baseSequence);
    b.putInt(HEADER_CRC, Checksums.crc32c(b, 0, HEADER_CRC));
    return b;
  }

  /**
   * Reads and checks the header: magic, format name, version (distinct errors for too old / too
   * new), crc.
   */
  public static SegmentHeader read(FileChannel ch, Path file) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(HEADER_LENGTH);
    while (b.hasRemaining()) {
      if (ch.read(b, b.position()) < 0) {
        throw new CorruptionException(
            file, 0, "file of " + b.position() + " bytes is shorter than the segment header");
      }
    }
    if (b.getInt(MAGIC) != MAGIC_VALUE) {
      throw new CorruptionException(
          file,
          MAGIC,
          String.format(
              "bad magic %08x (expected %08x): not a docstore segment",
              b.getInt(MAGIC), MAGIC_VALUE));
    }
    byte[] name = Arrays.copyOfRange(b.array(), NAME, NAME + NAME_LENGTH);
    if (!Arrays.equals(name, FORMAT_NAME_BYTES)) {
      throw new CorruptionException(file, NAME, "format name is not " + FORMAT_NAME);
    }
    int expected = b.getInt(HEADER_CRC);
    int actual = Checksums.crc32c(b, 0, HEADER_CRC);
    if (expected != actual) {
      throw CorruptionException.checksum(file, 0, "segment header", expected, actual);
    }
    int version = b.getInt(HEADER_VERSION);
    if (version < MIN_SUPPORTED_VERSION || version > VERSION) {
      throw new UnsupportedFormatException(
          file, FORMAT_NAME, version, MIN_SUPPORTED_VERSION, VERSION);
    }
    return new SegmentHeader(b.getLong(SEGMENT_NUMBER), b.getLong(BASE_SEQUENCE), version);
  }
}
