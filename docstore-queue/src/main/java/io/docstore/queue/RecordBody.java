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
 *               (originalOp is PUT, DELETE, PUT_EXPIRING or GROUPS; the expiry only for
 *               PUT_EXPIRING; a relocated DELETE has no document; for GROUPS the "document" is the
 *               original GROUPS body and originalSequence its version)
 * DROPPED       originalSequence:u64 originalAddress:u64
 * GROUPS        kind:u8 [sourceSequence:u64] expiresAtMillis:u64 count:u8 section*
 *               section := nameLength:u8 name(UTF-8) projectionLength:u32 projection
 *               kind 0: written with a document, just before its PUT or PUT_EXPIRING (the next
 *               sequence, same ID), which commits it; kind 1: a re-projection of the version
 *               sourceSequence of the document (only kind 1 has sourceSequence)
 * SOURCE        partition:u32 nextOffset:u64 count:u32 (id:u64 offset:u64)*count
 *               the next count records (consecutive sequences) carry the messages of the update
 *               log's partition at those offsets, record i of document id; nextOffset is the
 *               offset after the last message consumed. Its ID is the partition's source key.
 * </pre>
 *
 * A record's <b>version</b> is its sequence, except for a RELOCATED or DROPPED record, whose
 * version is its original sequence: the sequence its document was first written with (a DROPPED
 * record is a tombstone at that version); and a GROUPS record, whose version is its document's: the
 * next sequence for kind 0, {@code sourceSequence} for kind 1.
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
   * @throws IllegalArgumentException for a RELOCATED body whose original op is not PUT, DELETE,
   *     PUT_EXPIRING or GROUPS, or too short for it (a damaged or foreign record)
   */
  public static Op originalOp(Op op, ByteBuffer body, int at, int length) {
    if (op != Op.RELOCATED) {
      return op;
    }
    byte code = body.get(at + RELOCATED_OP);
    Op o = code >= 0 && code <= BlockFormat.OP_SOURCE ? Op.of(code) : Op.DROPPED;
    int need =
        switch (o) {
          case PUT_EXPIRING -> RELOCATED_FIXED + 8;
          case PUT, DELETE -> RELOCATED_FIXED;
          case GROUPS -> RELOCATED_FIXED + BlockFormat.GROUPS_MIN;
          case SOURCE -> RELOCATED_FIXED + BlockFormat.SOURCE_MIN;
          default -> -1;
        };
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
    if (op == Op.GROUPS) {
      return body.getLong(at + groupsFixed(body, at) - 8);
    }
    if (op == Op.RELOCATED) {
      Op o = originalOp(op, body, at, length);
      if (o == Op.PUT_EXPIRING) {
        return body.getLong(at + RELOCATED_FIXED);
      }
      if (o == Op.GROUPS) {
        return expiresAtMillis(Op.GROUPS, body, at + RELOCATED_FIXED, length - RELOCATED_FIXED);
      }
    }
    return NEVER;
  }

  /** Where the document starts, counted from the body's start. */
  public static int documentOffset(Op op, ByteBuffer body, int at, int length) {
    return switch (op) {
      case PUT, DELETE -> 0;
      case PUT_EXPIRING -> 8;
      case DROPPED -> length; // no document
      case GROUPS, SOURCE -> 0; // its "document" is the body itself
      case RELOCATED ->
          originalOp(op, body, at, length) == Op.PUT_EXPIRING
              ? RELOCATED_FIXED + 8
              : RELOCATED_FIXED;
    };
  }

  /**
   * The record's version: its original sequence if RELOCATED or DROPPED, its document's for GROUPS,
   * else {@code sequence}.
   */
  public static long version(Op op, long sequence, ByteBuffer body, int at) {
    if (op == Op.GROUPS) {
      return body.get(at) == GROUPS_WITH_DOCUMENT ? sequence + 1 : body.getLong(at + 1);
    }
    return op == Op.RELOCATED || op == Op.DROPPED
        ? body.getLong(at + RELOCATED_SEQUENCE)
        : sequence;
  }

  /** GROUPS kind: written with its document, which is the next record. */
  public static final byte GROUPS_WITH_DOCUMENT = 0;

  /** GROUPS kind: a re-projection of an existing version of the document. */
  public static final byte GROUPS_REPROJECTED = 1;

  /**
   * Whether a GROUPS record was written with its document (kind 0): it takes effect only together
   * with the PUT or PUT_EXPIRING of the same ID at the next sequence.
   */
  public static boolean groupsWithDocument(Op op, ByteBuffer body, int at) {
    return op == Op.GROUPS && body.get(at) == GROUPS_WITH_DOCUMENT;
  }

  /** Bytes of a GROUPS body before its sections' count. */
  private static int groupsFixed(ByteBuffer body, int at) {
    return body.get(at) == GROUPS_WITH_DOCUMENT ? 9 : 17;
  }

  /**
   * The body of a GROUPS record: {@code names[i]} projected as {@code projections[i]}.
   *
   * @param sourceSequence for a re-projection, the version of the document it was projected from;
   *     -1 for projections written with their document (kind 0)
   */
  public static byte[] groups(
      long sourceSequence, long expiresAtMillis, String[] names, byte[][] projections) {
    if (names.length > 255 || names.length != projections.length) {
      throw new IllegalArgumentException("at most 255 groups, one projection each");
    }
    byte[][] encoded = new byte[names.length][];
    int length = (sourceSequence < 0 ? 9 : 17) + 1;
    for (int i = 0; i < names.length; i++) {
      encoded[i] = names[i].getBytes(java.nio.charset.StandardCharsets.UTF_8);
      if (encoded[i].length == 0 || encoded[i].length > 255) {
        throw new IllegalArgumentException("a group name is 1 to 255 bytes: " + names[i]);
      }
      length += 1 + encoded[i].length + 4 + projections[i].length;
    }
    byte[] out = new byte[length];
    ByteBuffer b = ByteBuffer.wrap(out);
    if (sourceSequence < 0) {
      b.put(GROUPS_WITH_DOCUMENT);
    } else {
      b.put(GROUPS_REPROJECTED).putLong(sourceSequence);
    }
    b.putLong(expiresAtMillis).put((byte) names.length);
    for (int i = 0; i < names.length; i++) {
      b.put((byte) encoded[i].length).put(encoded[i]).putInt(projections[i].length);
      b.put(projections[i]);
    }
    return out;
  }

  /**
   * Where group {@code name}'s projection lies in the GROUPS body at {@code [at, at + length)} of
   * {@code body}: {@code offset << 32 | projectionLength} (offset counted from {@code at}), or -1
   * if the record has no such group.
   *
   * @throws IllegalArgumentException if the sections overrun the body (a damaged record)
   */
  public static long projection(ByteBuffer body, int at, int length, byte[] name) {
    return walk(body, at, length, name, null);
  }

  /**
   * The group names of the GROUPS body at {@code [at, at + length)} of {@code body}, in order.
   *
   * @throws IllegalArgumentException if the sections overrun the body
   */
  public static java.util.List<String> groupNames(ByteBuffer body, int at, int length) {
    java.util.List<String> names = new java.util.ArrayList<>();
    walk(body, at, length, null, names);
    return names;
  }

  /**
   * Walks the sections of the GROUPS body at {@code [at, at + length)} of {@code body}: returns
   * where group {@code name}'s projection lies ({@link #projection}), or adds every group's name to
   * {@code names} (then {@code name} is null) and returns -1. No lambda and no slice: it runs for
   * every group read.
   *
   * @throws IllegalArgumentException if the sections overrun the body
   */
  private static long walk(
      ByteBuffer body, int at, int length, byte[] name, java.util.List<String> names) {
    int p = groupsFixed(body, at);
    if (p >= length) {
      throw damagedGroups(length);
    }
    int count = Byte.toUnsignedInt(body.get(at + p++));
    for (int i = 0; i < count; i++) {
      int n = p < length ? Byte.toUnsignedInt(body.get(at + p)) : -1;
      int data = p + 1 + n + 4;
      int len = n < 0 || data > length ? -1 : body.getInt(at + data - 4);
      if (len < 0 || len > length - data) {
        throw damagedGroups(length);
      }
      if (names != null) {
        byte[] found = new byte[n];
        body.get(at + p + 1, found);
        names.add(new String(found, java.nio.charset.StandardCharsets.UTF_8));
      } else if (n == name.length && sameBytes(body, at + p + 1, name)) {
        return (long) data << 32 | len;
      }
      p = data + len;
    }
    return -1;
  }

  private static boolean sameBytes(ByteBuffer body, int at, byte[] name) {
    for (int i = 0; i < name.length; i++) {
      if (body.get(at + i) != name[i]) {
        return false;
      }
    }
    return true;
  }

  private static IllegalArgumentException damagedGroups(int length) {
    return new IllegalArgumentException(
        "a GROUPS record of " + length + " bytes whose sections overrun it");
  }

  /**
   * The body of a SOURCE record: the next {@code ids.length} records come from partition {@code
   * partition} of the update log, record i (of document {@code ids[i]}) from the message at {@code
   * offsets[i]} (a message of two records, projections and document, lists its offset twice);
   * {@code nextOffset} is the offset after the last message consumed, skipped ones included.
   */
  public static byte[] source(int partition, long nextOffset, long[] ids, long[] offsets) {
    if (ids.length != offsets.length || partition < 0 || nextOffset < 0) {
      throw new IllegalArgumentException("a partition, an offset, and one offset per record");
    }
    ByteBuffer b = ByteBuffer.allocate(BlockFormat.SOURCE_MIN + 16 * ids.length);
    b.putInt(partition).putLong(nextOffset).putInt(ids.length);
    for (int i = 0; i < ids.length; i++) {
      b.putLong(ids[i]).putLong(offsets[i]);
    }
    return b.array();
  }

  /** A SOURCE body's partition. */
  public static int sourcePartition(ByteBuffer body, int at) {
    return body.getInt(at);
  }

  /** A SOURCE body's offset after the last message consumed. */
  public static long sourceNextOffset(ByteBuffer body, int at) {
    return body.getLong(at + 4);
  }

  /**
   * A SOURCE body's count of records it names.
   *
   * @throws IllegalArgumentException if the body's length does not match it (a damaged record)
   */
  public static int sourceCount(ByteBuffer body, int at, int length) {
    int count = body.getInt(at + 12);
    if (count < 0 || length != BlockFormat.SOURCE_MIN + 16L * count) {
      throw new IllegalArgumentException(
          "a SOURCE record of " + length + " bytes naming " + count + " records");
    }
    return count;
  }

  /** The document ID of record {@code i} a SOURCE body names. */
  public static long sourceId(ByteBuffer body, int at, int i) {
    return body.getLong(at + BlockFormat.SOURCE_MIN + 16 * i);
  }

  /** The log offset of record {@code i} a SOURCE body names. */
  public static long sourceOffset(ByteBuffer body, int at, int i) {
    return body.getLong(at + BlockFormat.SOURCE_MIN + 16 * i + 8);
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
   * The body of a RELOCATED copy of a record of kind {@code originalOp} (PUT, DELETE, PUT_EXPIRING
   * or GROUPS, whose whole body is then {@code document}) first written at {@code originalSequence}
   * (for GROUPS: its version) to {@code originalAddress}.
   */
  public static byte[] relocated(
      long originalSequence,
      long originalAddress,
      Op originalOp,
      long expiresAtMillis,
      ByteBuffer document,
      int at,
      int length) {
    if (originalOp == Op.RELOCATED || originalOp == Op.DROPPED) {
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
