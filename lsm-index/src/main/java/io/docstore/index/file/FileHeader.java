package io.docstore.index.file;

import io.docstore.io.Checksums;
import io.docstore.io.CorruptionException;
import io.docstore.io.UnsupportedFormatException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The 32-byte header every lsm-index file starts with (little-endian):
 *
 * <pre>
 * offset size field
 *  0      8   magic        "DOCSTORE" (ASCII)
 *  8      8   format name  ASCII, NUL padded ("IDXWAL", "IDXTABLE", "IDXBLOOM", "IDXMANIF")
 * 16      4   version      u32
 * 20      4   param1       u32, format specific (e.g. page size)
 * 24      4   param2       u32, format specific
 * 28      4   header crc   masked CRC32C of bytes 0..27
 * </pre>
 *
 * A wrong magic, name or checksum is corruption; a version outside the supported range is an {@link
 * UnsupportedFormatException} (too old and too new are distinct).
 */
public final class FileHeader {

  public static final int MAGIC_OFFSET = 0;
  public static final int NAME_OFFSET = MAGIC_OFFSET + 8;
  public static final int VERSION_OFFSET = NAME_OFFSET + 8;
  public static final int PARAM1_OFFSET = VERSION_OFFSET + 4;
  public static final int PARAM2_OFFSET = PARAM1_OFFSET + 4;
  public static final int CRC_OFFSET = PARAM2_OFFSET + 4;
  public static final int SIZE = CRC_OFFSET + 4;

  private static final byte[] MAGIC = "DOCSTORE".getBytes(StandardCharsets.US_ASCII);

  private FileHeader() {}

  /** A parsed header. */
  public record Header(String format, int version, int param1, int param2) {}

  /** Writes a header at {@code buf}'s position (which must be little-endian) and advances it. */
  public static void write(ByteBuffer buf, String format, int version, int param1, int param2) {
    int start = buf.position();
    buf.put(MAGIC);
    byte[] name = new byte[8];
    byte[] f = format.getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(f, 0, name, 0, f.length);
    buf.put(name);
    buf.putInt(version).putInt(param1).putInt(param2);
    buf.putInt(Checksums.crc32c(buf, start, CRC_OFFSET));
  }

  /** A fresh little-endian buffer holding just the header. */
  public static ByteBuffer bytes(String format, int version, int param1, int param2) {
    ByteBuffer b = ByteBuffer.allocate(SIZE).order(ByteOrder.LITTLE_ENDIAN);
    write(b, format, version, param1, param2);
    return b.flip();
  }

  /**
   * Checks the header at absolute index {@code at} of {@code buf}.
   *
   * @throws CorruptionException bad magic, name or checksum
   * @throws UnsupportedFormatException version outside {@code [minVersion, maxVersion]}
   */
  public static Header read(
      ByteBuffer buf, int at, Path file, String format, int minVersion, int maxVersion)
      throws CorruptionException, UnsupportedFormatException {
    if (buf.limit() - at < SIZE) {
      throw new CorruptionException(file, 0, "file shorter than its " + SIZE + "-byte header");
    }
    ByteBuffer b = buf.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < MAGIC.length; i++) {
      if (b.get(at + i) != MAGIC[i]) {
        throw new CorruptionException(file, 0, "bad magic: not a docstore file");
      }
    }
    int expected = b.getInt(at + CRC_OFFSET);
    int actual = Checksums.crc32c(b, at, CRC_OFFSET);
    if (expected != actual) {
      throw CorruptionException.checksum(file, CRC_OFFSET, "header", expected, actual);
    }
    byte[] name = new byte[8];
    b.get(at + NAME_OFFSET, name);
    String found = new String(name, StandardCharsets.US_ASCII).replace("\0", "");
    if (!found.equals(format)) {
      throw new CorruptionException(
          file, NAME_OFFSET, "expected format " + format + " but header says " + found);
    }
    int version = b.getInt(at + VERSION_OFFSET);
    if (version < minVersion || version > maxVersion) {
      throw new UnsupportedFormatException(file, format, version, minVersion, maxVersion);
    }
    return new Header(found, version, b.getInt(at + PARAM1_OFFSET), b.getInt(at + PARAM2_OFFSET));
  }
}
