package io.docstore.queue.block;

import io.docstore.io.Checksums;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The per-record checksum of an uncompressed block in segment format version 2 ({@link
 * io.docstore.queue.format.BlockFormat#FLAG_RECORD_CRCS}): the masked CRC32C of the record's
 * sequence (8 bytes, big-endian) followed by its bytes (id, acceptedAt, op, body). The sequence
 * binds the record to its place, so a record read through a damaged offset table or block header
 * fails its check rather than coming back under the wrong sequence.
 */
public final class RecordChecksum {

  private final CRC32C crc = new CRC32C();
  private final byte[] sequenceBytes = new byte[8];
  private ByteBuffer view;
  private ByteBuffer viewOf;

  /**
   * A reusable checksummer: its {@link #compute} methods allocate nothing (a record's read or write
   * path uses one per thread). Not thread-safe.
   */
  public RecordChecksum() {}

  /** Checksum of the record {@code bytes[from, to)} with sequence {@code sequence}. */
  public static int of(byte[] bytes, int from, int to, long sequence) {
    return new RecordChecksum().compute(bytes, from, to, sequence);
  }

  /**
   * Checksum of the record at absolute indices {@code [from, to)} of {@code buf}; its position does
   * not move.
   */
  public static int of(ByteBuffer buf, int from, int to, long sequence) {
    return new RecordChecksum().compute(buf, from, to, sequence);
  }

  /** {@link #of(byte[], int, int, long)} without allocating. */
  public int compute(byte[] bytes, int from, int to, long sequence) {
    withSequence(sequence);
    crc.update(bytes, from, to - from);
    return Checksums.mask((int) crc.getValue());
  }

  /**
   * {@link #of(ByteBuffer, int, int, long)} without allocating (after the first call with {@code
   * buf}).
   */
  public int compute(ByteBuffer buf, int from, int to, long sequence) {
    withSequence(sequence);
    if (viewOf != buf) {
      view = buf.duplicate();
      viewOf = buf;
    }
    view.clear();
    view.position(from).limit(to);
    crc.update(view);
    view.clear();
    return Checksums.mask((int) crc.getValue());
  }

  private void withSequence(long sequence) {
    crc.reset();
    BigEndian.putLong(sequenceBytes, 0, sequence);
    crc.update(sequenceBytes, 0, 8);
  }
}
