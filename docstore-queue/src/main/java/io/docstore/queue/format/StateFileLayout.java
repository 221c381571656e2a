package io.docstore.queue.format;

import io.docstore.io.Checksums;
import io.docstore.io.CorruptionException;
import io.docstore.io.UnsupportedFormatException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The frame shared by the queue's small fixed-length state files (the replication manifest, a
 * replica's ingestion point): magic (4 bytes), format name (16 ASCII bytes), version (4 bytes), the
 * file's own fields, and a masked CRC32C of everything before it in the last 4 bytes. Big-endian.
 * The specs are in {@code docs/formats/replication-manifest.md} and {@code
 * docs/formats/replica-point.md}.
 *
 * @param what how error messages name the file ("replication manifest")
 */
public record StateFileLayout(
    int magicValue, String formatName, int version, int length, String what) {

  public static final int MAGIC = 0;
  public static final int NAME = MAGIC + 4;
  public static final int NAME_LENGTH = 16;
  public static final int FORMAT_VERSION = NAME + NAME_LENGTH;

  /** Where a file's own fields start. */
  public static final int FIELDS = FORMAT_VERSION + 4;

  public StateFileLayout {
    if (formatName.getBytes(StandardCharsets.US_ASCII).length != NAME_LENGTH) {
      throw new IllegalArgumentException(
          "format name must be " + NAME_LENGTH + " ASCII bytes: " + formatName);
    }
  }

  public int crcOffset() {
    return length - 4;
  }

  /** A buffer of {@link #length} bytes with the magic, name and version written. */
  public ByteBuffer begin() {
    ByteBuffer b = ByteBuffer.allocate(length);
    b.putInt(MAGIC, magicValue);
    b.put(NAME, formatName.getBytes(StandardCharsets.US_ASCII));
    b.putInt(FORMAT_VERSION, version);
    return b;
  }

  /** Writes the checksum of a buffer from {@link #begin} and returns its bytes. */
  public byte[] seal(ByteBuffer b) {
    b.putInt(crcOffset(), Checksums.crc32c(b.array(), 0, crcOffset()));
    return b.array();
  }

  /**
   * Checks length, checksum, magic, name and version of {@code bytes} read from {@code file} and
   * returns them wrapped for reading the fields.
   */
  public ByteBuffer check(Path file, byte[] bytes) throws IOException {
    if (bytes.length != length) {
      throw new CorruptionException(
          file, 0, what + " is " + bytes.length + " bytes, expected " + length);
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    int expected = b.getInt(crcOffset());
    int actual = Checksums.crc32c(bytes, 0, crcOffset());
    if (expected != actual) {
      throw CorruptionException.checksum(file, crcOffset(), what, expected, actual);
    }
    if (b.getInt(MAGIC) != magicValue
        || !Arrays.equals(
            Arrays.copyOfRange(bytes, NAME, NAME + NAME_LENGTH),
            formatName.getBytes(StandardCharsets.US_ASCII))) {
      throw new CorruptionException(file, 0, "not a " + what + " (bad magic or format name)");
    }
    int v = b.getInt(FORMAT_VERSION);
    if (v != version) {
      throw new UnsupportedFormatException(file, formatName, v, version, version);
    }
    return b;
  }
}
