package io.docstore.io;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * CRC32C checksums as every docstore format stores them: masked (rotate and add a constant, as
 * LevelDB does) so that a run of zero bytes, or a checksum computed over data that itself holds
 * checksums, never verifies by accident. In particular the masked checksum of empty input is not
 * zero, so an all-zero region (a preallocated or zero-filled tail) never passes as a valid record.
 */
public final class Checksums {

  private static final int MASK_DELTA = 0xa282ead8;

  private Checksums() {}

  /** Masks a raw CRC32C value. */
  public static int mask(int crc) {
    return ((crc >>> 15) | (crc << 17)) + MASK_DELTA;
  }

  /** Masked CRC32C of {@code buf}'s remaining bytes; does not move its position. */
  public static int crc32c(ByteBuffer buf) {
    CRC32C crc = new CRC32C();
    crc.update(buf.duplicate());
    return mask((int) crc.getValue());
  }

  /** Masked CRC32C of {@code len} bytes of {@code buf} from absolute index {@code from}. */
  public static int crc32c(ByteBuffer buf, int from, int len) {
    CRC32C crc = new CRC32C();
    ByteBuffer slice = buf.duplicate();
    slice.limit(from + len).position(from);
    crc.update(slice);
    return mask((int) crc.getValue());
  }

  /** Masked CRC32C of {@code len} bytes of {@code bytes} from {@code off}. */
  public static int crc32c(byte[] bytes, int off, int len) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, off, len);
    return mask((int) crc.getValue());
  }
}
