package io.docstore.queue;

import io.docstore.queue.format.BlockFormat;
import java.nio.ByteBuffer;

/**
 * The layout of a record's body for each {@link Op} (big-endian; {@code docs/formats/segment.md},
 * "Record kinds"): the one place that knows where a record's document, expiry, original sequence
 * and original address are. Stateless; nothing is allocated by the readers.
 *
 * <pre>
 * PUT           document
 * DELETE        (empty)
 * PUT_EXPIRING  expiresAtMillis:u64 document
 * RELOCATED     originalSequence:u64 originalAddress:u64 originalOp:u8 [expiresAtMillis:u64] document
 *               (originalOp is PUT, DELETE or PUT_EXPIRING; the expiry only for PUT_EXPIRING; a
 *               relocated DELETE has no document)
 * DROPPED       originalSequence:u64 originalAddress:u64
 * </pre>
 *
 * A record's <b>version</b> is its sequence, except for a RELOCATED or DROPPED record, whose
 * version is its original sequence: the sequence its document was first written with (a DROPPED
 * record is a tombstone at that version).
 */
public final class RecordBody {

  /** Expiry of a document that never expires. */
  public static final long NEVER = 0;

  private static final int RELOCATED_SEQUENCE = 0;
  private static final int RELOCATED_ADDRESS = 8;
  private static final int RELOCATED_OP = 16;
  private static final int RELOCATED_FIXED = BlockFormat.RELOCATED_FIXED;

  private RecordBody() {}

  /**
   * What the record stands for: its own op, or for a RELOCATED record the op it was first written
   * with. Never RELOCATED.
   *
   * @throws IllegalArgumentException for a RELOCATED body whose original op is not PUT, DELETE or
   *     PUT_EXPIRING, or too short for it (a damaged or foreign record)
   */
  public static Op originalOp(Op op, ByteBuffer body, int at, int length) {
    if (op != Op.RELOCATED) {
      return op;
    }
    Op o = Op.of(body.get(at + RELOCATED_OP));
    int need =
        o == Op.PUT_EXPIRING
            ? RELOCATED_FIXED + 8
            : o == Op.PUT || o == Op.DELETE ? RELOCATED_FIXED : -1;
    if (need < 0 || length < need || (o == Op.DELETE && length != need)) {
      throw new IllegalArgumentException(
          "relocated record of "
              + length
              + " bytes with original op code "
              + body.get(at + RELOCATED_OP));
    }
    return o;
  }

  /** Whether the record makes its document readable (until it expires, if it does). */
  public static boolean stores(Op op, ByteBuffer body, int at, int length) {
    return originalOp(op, body, at, length).stores();
  }

  /** The document's expiry in epoch milliseconds, or {@link #NEVER}. */
  public static long expiresAtMillis(Op op, ByteBuffer body, int at, int length) {
    if (op == Op.PUT_EXPIRING) {
      return body.getLong(at);
    }
    if (op == Op.RELOCATED && originalOp(op, body, at, length) == Op.PUT_EXPIRING) {
      return body.getLong(at + RELOCATED_FIXED);
    }
    return NEVER;
  }

  /** Where the document starts, counted from the body's start. */
  public static int documentOffset(Op op, ByteBuffer body, int at, int length) {
    return switch (op) {
      case PUT, DELETE -> 0;
      case PUT_EXPIRING -> 8;
      case DROPPED -> length; // no document
      case RELOCATED ->
          originalOp(op, body, at, length) == Op.PUT_EXPIRING
              ? RELOCATED_FIXED + 8
              : RELOCATED_FIXED;
    };
  }

  /** The record's version: its original sequence if RELOCATED or DROPPED, else {@code sequence}. */
  public static long version(Op op, long sequence, ByteBuffer body, int at) {
    return op == Op.RELOCATED || op == Op.DROPPED
        ? body.getLong(at + RELOCATED_SEQUENCE)
        : sequence;
  }

  /** The address a RELOCATED or DROPPED record stands for; 0 for other kinds. */
  public static long originalAddress(Op op, ByteBuffer body, int at) {
    return op == Op.RELOCATED || op == Op.DROPPED ? body.getLong(at + RELOCATED_ADDRESS) : 0;
  }

  /** The body of a PUT_EXPIRING record of {@code document}. */
  public static byte[] expiring(long expiresAtMillis, byte[] document) {
    byte[] out = new byte[8 + document.length];
    ByteBuffer.wrap(out).putLong(expiresAtMillis).put(document);
    return out;
  }

  /**
   * The body of a RELOCATED copy of a record of kind {@code originalOp} (PUT, DELETE or
   * PUT_EXPIRING) first written at {@code originalSequence} to {@code originalAddress}.
   */
  public static byte[] relocated(
      long originalSequence,
      long originalAddress,
      Op originalOp,
      long expiresAtMillis,
      ByteBuffer document,
      int at,
      int length) {
    if (originalOp != Op.PUT && originalOp != Op.DELETE && originalOp != Op.PUT_EXPIRING) {
      throw new IllegalArgumentException("cannot relocate a " + originalOp + " record");
    }
    boolean expiring = originalOp == Op.PUT_EXPIRING;
    byte[] out = new byte[RELOCATED_FIXED + (expiring ? 8 : 0) + length];
    ByteBuffer b = ByteBuffer.wrap(out);
    b.putLong(originalSequence).putLong(originalAddress).put(originalOp.code);
    if (expiring) {
      b.putLong(expiresAtMillis);
    }
    b.put(document.duplicate().limit(at + length).position(at));
    return out;
  }

  /**
   * The body of a DROPPED record standing for the version first written at {@code originalSequence}
   * to {@code originalAddress}.
   */
  public static byte[] dropped(long originalSequence, long originalAddress) {
    byte[] out = new byte[BlockFormat.DROPPED_LENGTH];
    ByteBuffer.wrap(out).putLong(originalSequence).putLong(originalAddress);
    return out;
  }
}
