package io.docstore.client.wire;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * A decoded response frame: an ERROR (code and message), DOCS (one entry per requested ID, in
 * request order) or POSITION (a partition and its next offset). Immutable after decoding; the
 * arrays are owned by this object.
 */
public final class RpcResponse {

  private final long requestId;
  private final int errorCode;
  private final String message;
  private final byte[] statuses;
  private final long[] sequences;
  private final long[] acceptedAt;
  private final byte[][] bodies;
  private final String[] messages;
  private final boolean isPosition;
  private final long partition;
  private final long nextOffset;

  private RpcResponse(long requestId, int errorCode, String message, int count) {
    this(requestId, errorCode, message, count, false, 0, 0);
  }

  private RpcResponse(long requestId, long partition, long nextOffset) {
    this(requestId, 0, null, 0, true, partition, nextOffset);
  }

  private RpcResponse(
      long requestId,
      int errorCode,
      String message,
      int count,
      boolean isPosition,
      long partition,
      long nextOffset) {
    this.isPosition = isPosition;
    this.partition = partition;
    this.nextOffset = nextOffset;
    this.requestId = requestId;
    this.errorCode = errorCode;
    this.message = message;
    this.statuses = new byte[count];
    this.sequences = new long[count];
    this.acceptedAt = new long[count];
    this.bodies = new byte[count][];
    this.messages = new String[count];
  }

  /**
   * Decodes one frame body (as produced by {@link RpcFrameDecoder}).
   *
   * @throws RpcProtocolException with {@code ERR_MALFORMED} or {@code ERR_BAD_VERSION} when the
   *     frame does not follow the format
   */
  public static RpcResponse decode(ByteBuf body) {
    try {
      byte version = body.readByte();
      if (version != RpcFormat.VERSION) {
        throw new RpcProtocolException(RpcFormat.ERR_BAD_VERSION, "response version " + version);
      }
      byte opcode = body.readByte();
      long requestId = body.readLong();
      if (opcode == RpcFormat.OP_ERROR) {
        int code = body.readUnsignedByte();
        String msg = readMessage(body);
        return new RpcResponse(requestId, code, msg, 0);
      }
      if (opcode == RpcFormat.OP_POSITION_ANSWER) {
        return position(requestId, body);
      }
      if (opcode != RpcFormat.OP_DOCS) {
        throw new RpcProtocolException(RpcFormat.ERR_MALFORMED, "response opcode " + opcode);
      }
      long count = body.readUnsignedInt();
      // Every entry takes at least one byte: a count above the bytes left is a lie.
      if (count > body.readableBytes()) {
        throw new RpcProtocolException(RpcFormat.ERR_MALFORMED, "entry count " + count);
      }
      RpcResponse r = new RpcResponse(requestId, 0, null, (int) count);
      for (int i = 0; i < count; i++) {
        byte status = body.readByte();
        r.statuses[i] = status;
        switch (status) {
          case RpcFormat.STATUS_FOUND:
            r.sequences[i] = body.readLong();
            r.acceptedAt[i] = body.readLong();
            long len = body.readUnsignedInt();
            if (len > body.readableBytes()) {
              throw new RpcProtocolException(RpcFormat.ERR_MALFORMED, "body length " + len);
            }
            r.bodies[i] = new byte[(int) len];
            body.readBytes(r.bodies[i]);
            break;
          case RpcFormat.STATUS_CORRUPT:
          case RpcFormat.STATUS_ERROR:
            r.messages[i] = readMessage(body);
            break;
          case RpcFormat.STATUS_MISSING:
          case RpcFormat.STATUS_NOT_SENT:
            break;
          default:
            throw new RpcProtocolException(RpcFormat.ERR_MALFORMED, "entry status " + status);
        }
      }
      if (body.isReadable()) {
        throw new RpcProtocolException(
            RpcFormat.ERR_MALFORMED, body.readableBytes() + " bytes after the last entry");
      }
      return r;
    } catch (IndexOutOfBoundsException e) {
      throw new RpcProtocolException(RpcFormat.ERR_MALFORMED, "response frame ends early");
    }
  }

  private static RpcResponse position(long requestId, ByteBuf body) {
    long partition = body.readUnsignedInt();
    long next = body.readLong();
    if (body.isReadable() || next < -1) {
      throw new RpcProtocolException(
          RpcFormat.ERR_MALFORMED,
          "POSITION answer with next offset "
              + next
              + " and "
              + body.readableBytes()
              + " bytes after it");
    }
    return new RpcResponse(requestId, partition, next);
  }

  static String readMessage(ByteBuf body) {
    int len = body.readUnsignedShort();
    return body.readCharSequence(len, StandardCharsets.UTF_8).toString();
  }

  public long requestId() {
    return requestId;
  }

  /** Whether this is an ERROR frame. */
  public boolean isError() {
    return errorCode != 0;
  }

  /** The {@code RpcFormat.ERR_*} code of an ERROR frame, 0 for DOCS. */
  public int errorCode() {
    return errorCode;
  }

  /** The message of an ERROR frame. */
  public String message() {
    return message;
  }

  /** Whether this is a POSITION answer. */
  public boolean isPosition() {
    return isPosition;
  }

  /** The partition a POSITION answer is about (unsigned 32-bit, as asked). */
  public long partition() {
    return partition;
  }

  /**
   * A POSITION answer's offset of the first message of the partition whose write reads there may
   * not see yet; -1 when nothing of it is visible there.
   */
  public long nextOffset() {
    return nextOffset;
  }

  public int count() {
    return statuses.length;
  }

  /** The {@code RpcFormat.STATUS_*} of entry {@code i}. */
  public byte status(int i) {
    return statuses[i];
  }

  public long sequence(int i) {
    return sequences[i];
  }

  public long acceptedAtMillis(int i) {
    return acceptedAt[i];
  }

  public byte[] body(int i) {
    return bodies[i];
  }

  /** The message of a CORRUPT or ERROR entry. */
  public String message(int i) {
    return messages[i];
  }
}
