package io.docstore.queue.block;

import static io.docstore.queue.format.BlockFormat.OFFSET_ENTRY;
import static io.docstore.queue.format.BlockFormat.RECORD_BODY;

import java.nio.ByteBuffer;

/**
 * Bounds of one record in a raw block payload (offset table, then records) held in a {@code
 * ByteBuffer}: a decoded block in a cache slot, or a stored-uncompressed block in a segment's
 * mapping. Every offset is checked against the payload, so a bad table (or a slot being refilled
 * under an optimistic read) gives -1, never a read outside the payload; each caller turns that into
 * its own error.
 */
public final class RawRecords {

  private RawRecords() {}

  /**
   * Start of record {@code i}, relative to the payload at {@code payload} of {@code buf}, or -1 if
   * the table does not place it inside {@code rawLength} bytes (record 0 must start just after the
   * table).
   */
  public static int start(ByteBuffer buf, int payload, int count, int rawLength, int i) {
    int table = count * OFFSET_ENTRY;
    if (i < 0 || i >= count || table > rawLength) {
      return -1;
    }
    int start = buf.getInt(payload + i * OFFSET_ENTRY);
    if ((i == 0 ? start != table : start < table) || start > rawLength - RECORD_BODY) {
      return -1;
    }
    return start;
  }

  /**
   * End of record {@code i} (where the next starts, or {@code rawLength}), or -1 if out of bounds.
   */
  public static int end(ByteBuffer buf, int payload, int count, int rawLength, int i, int start) {
    int end = i + 1 < count ? buf.getInt(payload + (i + 1) * OFFSET_ENTRY) : rawLength;
    if (end < start + RECORD_BODY || end > rawLength) {
      return -1;
    }
    return end;
  }
}
