package io.docstore.client.wire;

/**
 * The binary RPC wire format, version 1 (spec: {@code docs/formats/rpc.md}). All integers are
 * big-endian.
 *
 * <pre>
 * frame    = length:u32 body[length]              length counts the bytes after itself
 * body     = version:u8 opcode:u8 request_id:u64 payload
 * GET_MANY (0x01, request)  payload = count:u32 id:i64 * count
 * GET_MANY_GROUP (0x02, request)
 *                           payload = group_len:u8 group:utf8[group_len] count:u32 id:i64 * count
 *                           (group_len 1..64; answered by DOCS with the group's projections)
 * POSITION (0x03, request)  payload = partition:u32
 * DOCS     (0x81, response) payload = count:u32 entry * count     (entries in request order)
 * POSITION (0x82, response) payload = partition:u32 next_offset:i64  (-1: nothing of it here)
 * entry    = FOUND(0) sequence:i64 accepted_at_ms:i64 body_len:u32 body
 *          | MISSING(1)
 *          | CORRUPT(2) msg_len:u16 msg:utf8
 *          | ERROR(3) msg_len:u16 msg:utf8
 *          | NOT_SENT(4)                                    (response size limit; ask again)
 * ERROR    (0xFF, response) payload = code:u8 msg_len:u16 msg:utf8
 * </pre>
 */
public final class RpcFormat {

  private RpcFormat() {}

  public static final byte VERSION = 1;

  // Frame header offsets, chained: each field starts where the previous one ends.
  public static final int LENGTH_OFFSET = 0;
  public static final int LENGTH_SIZE = 4;

  /** Offsets below are relative to the start of the body (just after the length field). */
  public static final int VERSION_OFFSET = 0;

  public static final int OPCODE_OFFSET = VERSION_OFFSET + 1;
  public static final int REQUEST_ID_OFFSET = OPCODE_OFFSET + 1;
  public static final int PAYLOAD_OFFSET = REQUEST_ID_OFFSET + 8;

  /** The smallest legal body: version, opcode and request id with an empty payload. */
  public static final int MIN_BODY_SIZE = PAYLOAD_OFFSET;

  /** Bytes of a GET_MANY body before the IDs: header and count. */
  public static final int GET_MANY_FIXED_SIZE = PAYLOAD_OFFSET + 4;

  /** Longest group name, in UTF-8 bytes, in a GET_MANY_GROUP request (the shortest is 1). */
  public static final int MAX_GROUP_NAME_BYTES = 64;

  /**
   * Bytes of a GET_MANY_GROUP body besides the group name and the IDs: header, group length and
   * count.
   */
  public static final int GET_MANY_GROUP_FIXED_SIZE = PAYLOAD_OFFSET + 1 + 4;

  /** Bytes of a POSITION request body: header and partition. */
  public static final int POSITION_SIZE = PAYLOAD_OFFSET + 4;

  /** Bytes of a POSITION answer body: header, partition and next offset. */
  public static final int POSITION_ANSWER_SIZE = PAYLOAD_OFFSET + 4 + 8;

  /** Bytes of a DOCS body before the entries: header and count. */
  public static final int DOCS_FIXED_SIZE = PAYLOAD_OFFSET + 4;

  /** Fixed part of a FOUND entry: status, sequence, accepted time, body length. */
  public static final int FOUND_FIXED_SIZE = 1 + 8 + 8 + 4;

  /** Fixed part of a CORRUPT or ERROR entry: status and message length. */
  public static final int MESSAGE_ENTRY_FIXED_SIZE = 1 + 2;

  /** Longest message, in bytes, in an ERROR frame or entry (longer ones are cut). */
  public static final int MAX_MESSAGE_BYTES = 1024;

  public static final byte OP_GET_MANY = 0x01;
  public static final byte OP_GET_MANY_GROUP = 0x02;

  /** Request: how far reads see a partition of the update log (read-your-writes). */
  public static final byte OP_POSITION = 0x03;

  public static final byte OP_DOCS = (byte) 0x81;

  /** Response to {@link #OP_POSITION}, named POSITION in the spec too. */
  public static final byte OP_POSITION_ANSWER = (byte) 0x82;

  public static final byte OP_ERROR = (byte) 0xFF;

  public static final byte STATUS_FOUND = 0;
  public static final byte STATUS_MISSING = 1;
  public static final byte STATUS_CORRUPT = 2;
  public static final byte STATUS_ERROR = 3;
  public static final byte STATUS_NOT_SENT = 4;

  /** Error codes of an ERROR frame. Codes marked "closes" end the connection after the frame. */
  public static final byte ERR_BAD_VERSION = 1; // closes

  public static final byte ERR_BAD_OPCODE = 2;
  public static final byte ERR_FRAME_TOO_LARGE = 3; // closes
  public static final byte ERR_MALFORMED = 4; // closes
  public static final byte ERR_TOO_MANY_IDS = 5;
  public static final byte ERR_BAD_ID = 6;
  public static final byte ERR_OVERLOADED = 7;
  public static final byte ERR_INTERNAL = 8;
  public static final byte ERR_SHUTTING_DOWN = 9; // closes
  public static final byte ERR_UNKNOWN_GROUP = 10;
  public static final byte ERR_WRONG_SHARD = 11;

  /** Request id used in an ERROR frame when the request's own id could not be read. */
  public static final long NO_REQUEST_ID = 0;

  /** A readable name for an error code, for messages and metric tags. */
  public static String errorName(int code) {
    switch (code) {
      case ERR_BAD_VERSION:
        return "bad_version";
      case ERR_BAD_OPCODE:
        return "bad_opcode";
      case ERR_FRAME_TOO_LARGE:
        return "frame_too_large";
      case ERR_MALFORMED:
        return "malformed";
      case ERR_TOO_MANY_IDS:
        return "too_many_ids";
      case ERR_BAD_ID:
        return "bad_id";
      case ERR_OVERLOADED:
        return "overloaded";
      case ERR_INTERNAL:
        return "internal";
      case ERR_SHUTTING_DOWN:
        return "shutting_down";
      case ERR_UNKNOWN_GROUP:
        return "unknown_group";
      case ERR_WRONG_SHARD:
        return "wrong_shard";
      default:
        return "unknown_" + code;
    }
  }
}
