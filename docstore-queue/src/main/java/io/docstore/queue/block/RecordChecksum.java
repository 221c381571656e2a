package io.docstore.queue.block;

import io.docstore.io.Checksums;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The per-record checksum of an uncompressed block in segment format version 2
 * ({@link io.docstore.queue.format.BlockFormat#FLAG_RECORD_CRCS}): the masked CRC32C of the
 * record's sequence (8 bytes, big-endian) followed by its bytes (id, acceptedAt, op, body). The
 * sequence binds the record to its place, so a record read through a damaged offset table or block
 * header fails its check rather than coming back under the wrong sequence.
 */
public final class RecordChecksum {

  private RecordChecksum() {}

  /** Checksum of the record {@code bytes[from, to)} with sequence {@code sequence}. */
  public static int of(byte[] bytes, int from, int to, long sequence) {
    CRC32C crc = withSequence(sequence);
    crc.update(bytes, from, to - from);
    return Checksums.mask((int) crc.getValue());
  }

  /** Checksum of the record at absolute indices {@code [from, to)} of {@code buf}; its position does not move. */
  public static int of(ByteBuffer buf, int from, int to, long sequence) {
    CRC32C crc = withSequence(sequence);
    ByteBuffer record = buf.duplicate();
    record.limit(to).position(from);
    crc.update(record);
    return Checksums.mask((int) crc.getValue());
  }

  private static CRC32C withSequence(long sequence) {
    CRC32C crc = new CRC32C();
    for (int shift = 56; shift >= 0; shift -= 8) {
      crc.update((int) (sequence >>> shift));
    }
    return crc;
  }
}
