package io.docstore.queue;

import io.docstore.queue.format.BlockFormat;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * One record read back from the queue. {@code body} is the record's body as stored, laid out for
 * its {@link Op} by {@link RecordBody} (empty for a DELETE; for a PUT it is the document). The body
 * array is the caller's own copy.
 */
public record QueueRecord(
    long address, long id, long sequence, Op op, long acceptedAtMillis, byte[] body) {

  /** The op the record stands for (its own, or a RELOCATED record's original op). */
  public Op originalOp() {
    return RecordBody.originalOp(op, ByteBuffer.wrap(body), 0, body.length);
  }

  /** Whether the record makes its document readable (until it expires, if it does). */
  public boolean stores() {
    return originalOp().stores();
  }

  /** Its version: the original sequence of a RELOCATED record, else {@link #sequence}. */
  public long version() {
    return RecordBody.version(op, sequence, ByteBuffer.wrap(body), 0);
  }

  /** The document's expiry (epoch milliseconds), or {@link RecordBody#NEVER}. */
  public long expiresAtMillis() {
    return RecordBody.expiresAtMillis(op, ByteBuffer.wrap(body), 0, body.length);
  }

  /** The address a RELOCATED or DROPPED record stands for; 0 for other kinds. */
  public long originalAddress() {
    return RecordBody.originalAddress(op, ByteBuffer.wrap(body), 0);
  }

  /**
   * Group {@code name}'s projection, from a GROUPS record or a RELOCATED copy of one: a copy, or
   * null if the record has no such group.
   */
  public byte[] projection(byte[] name) {
    int at = op == Op.RELOCATED ? BlockFormat.RELOCATED_FIXED : 0;
    long p = RecordBody.projection(ByteBuffer.wrap(body), at, body.length - at, name);
    if (p < 0) {
      return null;
    }
    int from = at + (int) (p >>> 32);
    return Arrays.copyOfRange(body, from, from + (int) p);
  }

  /** The document's bytes: {@link #body} itself for a PUT, else a copy of the document part. */
  public byte[] document() {
    int from = RecordBody.documentOffset(op, ByteBuffer.wrap(body), 0, body.length);
    return from == 0 ? body : Arrays.copyOfRange(body, from, body.length);
  }
}
