package io.docstore.client.wire;

import io.docstore.client.Document;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import java.nio.charset.StandardCharsets;

/** Encoders for the frames of {@link RpcFormat}; stateless and thread-safe. */
public final class RpcFrames {

  private RpcFrames() {}

  /** A GET_MANY request for {@code ids[from, to)}. */
  public static ByteBuf getMany(
      ByteBufAllocator alloc, long requestId, long[] ids, int from, int to) {
    int count = to - from;
    int bodyLen = RpcFormat.GET_MANY_FIXED_SIZE + 8 * count;
    ByteBuf buf = alloc.buffer(RpcFormat.LENGTH_SIZE + bodyLen);
    buf.writeInt(bodyLen);
    writeHeader(buf, RpcFormat.OP_GET_MANY, requestId);
    buf.writeInt(count);
    for (int i = from; i < to; i++) {
      buf.writeLong(ids[i]);
    }
    return buf;
  }

  /**
   * A GET_MANY_GROUP request for group {@code group}'s projections of {@code ids[from, to)}.
   *
   * @throws IllegalArgumentException if the group name is not 1 to {@link
   *     RpcFormat#MAX_GROUP_NAME_BYTES} bytes of UTF-8
   */
  public static ByteBuf getManyGroup(
      ByteBufAllocator alloc, long requestId, String group, long[] ids, int from, int to) {
    byte[] name = groupName(group);
    int count = to - from;
    int bodyLen = RpcFormat.GET_MANY_GROUP_FIXED_SIZE + name.length + 8 * count;
    ByteBuf buf = alloc.buffer(RpcFormat.LENGTH_SIZE + bodyLen);
    buf.writeInt(bodyLen);
    writeHeader(buf, RpcFormat.OP_GET_MANY_GROUP, requestId);
    buf.writeByte(name.length);
    buf.writeBytes(name);
    buf.writeInt(count);
    for (int i = from; i < to; i++) {
      buf.writeLong(ids[i]);
    }
    return buf;
  }

  /**
   * The UTF-8 bytes of a group name as sent in GET_MANY_GROUP.
   *
   * @throws IllegalArgumentException if null, empty or longer than {@link
   *     RpcFormat#MAX_GROUP_NAME_BYTES} bytes
   */
  public static byte[] groupName(String group) {
    if (group == null || group.isEmpty()) {
      throw new IllegalArgumentException("a group name is 1 to 64 bytes, got none");
    }
    byte[] name = group.getBytes(StandardCharsets.UTF_8);
    if (name.length > RpcFormat.MAX_GROUP_NAME_BYTES) {
      throw new IllegalArgumentException(
          "a group name is 1 to "
              + RpcFormat.MAX_GROUP_NAME_BYTES
              + " bytes, got "
              + name.length
              + " bytes");
    }
    return name;
  }

  /** A POSITION request for partition {@code partition} of the update log. */
  public static ByteBuf position(ByteBufAllocator alloc, long requestId, int partition) {
    ByteBuf buf = alloc.buffer(RpcFormat.LENGTH_SIZE + RpcFormat.POSITION_SIZE);
    buf.writeInt(RpcFormat.POSITION_SIZE);
    writeHeader(buf, RpcFormat.OP_POSITION, requestId);
    buf.writeInt(partition);
    return buf;
  }

  /**
   * The POSITION answer: {@code partition} as asked (an unsigned 32-bit value) and the offset of
   * the first message of it whose write reads may not see yet, -1 when nothing of it is visible.
   */
  public static ByteBuf positionAnswer(
      ByteBufAllocator alloc, long requestId, long partition, long nextOffset) {
    ByteBuf buf = alloc.buffer(RpcFormat.LENGTH_SIZE + RpcFormat.POSITION_ANSWER_SIZE);
    buf.writeInt(RpcFormat.POSITION_ANSWER_SIZE);
    writeHeader(buf, RpcFormat.OP_POSITION_ANSWER, requestId);
    buf.writeInt((int) partition);
    buf.writeLong(nextOffset);
    return buf;
  }

  /** An ERROR frame. */
  public static ByteBuf error(ByteBufAllocator alloc, long requestId, int code, String message) {
    byte[] msg = truncatedUtf8(message);
    int bodyLen = RpcFormat.PAYLOAD_OFFSET + 1 + 2 + msg.length;
    ByteBuf buf = alloc.buffer(RpcFormat.LENGTH_SIZE + bodyLen);
    buf.writeInt(bodyLen);
    writeHeader(buf, RpcFormat.OP_ERROR, requestId);
    buf.writeByte(code);
    buf.writeShort(msg.length);
    buf.writeBytes(msg);
    return buf;
  }

  /**
   * A DOCS response. Entry {@code i} is FOUND with {@code docs[i]} when its status is FOUND, and
   * carries {@code messages[i]} when CORRUPT or ERROR. Entries that would push the body past {@code
   * maxBodyBytes} are sent as NOT_SENT (the client asks again); the first entry is always sent, as
   * ERROR when it alone is too large.
   */
  public static ByteBuf docs(
      ByteBufAllocator alloc,
      long requestId,
      byte[] statuses,
      Document[] docs,
      String[] messages,
      int maxBodyBytes) {
    int n = statuses.length;
    byte[][] msgs = new byte[n][];
    long bodyLen = RpcFormat.DOCS_FIXED_SIZE;
    for (int i = 0; i < n; i++) {
      long size = entrySize(statuses[i], docs[i], messages[i], msgs, i);
      if (bodyLen + size > maxBodyBytes) {
        if (i == 0) {
          statuses[0] = RpcFormat.STATUS_ERROR;
          String why = "document of " + docs[0].body().length + " bytes exceeds the response limit";
          size = entrySize(RpcFormat.STATUS_ERROR, null, why, msgs, 0);
        } else {
          statuses[i] = RpcFormat.STATUS_NOT_SENT;
          size = 1;
        }
      }
      bodyLen += size;
    }
    ByteBuf buf = alloc.buffer(RpcFormat.LENGTH_SIZE + (int) bodyLen);
    buf.writeInt((int) bodyLen);
    writeHeader(buf, RpcFormat.OP_DOCS, requestId);
    buf.writeInt(n);
    for (int i = 0; i < n; i++) {
      byte status = statuses[i];
      buf.writeByte(status);
      if (status == RpcFormat.STATUS_FOUND) {
        buf.writeLong(docs[i].sequence());
        buf.writeLong(docs[i].acceptedAtMillis());
        buf.writeInt(docs[i].body().length);
        buf.writeBytes(docs[i].body());
      } else if (status == RpcFormat.STATUS_CORRUPT || status == RpcFormat.STATUS_ERROR) {
        buf.writeShort(msgs[i].length);
        buf.writeBytes(msgs[i]);
      }
    }
    return buf;
  }

  private static long entrySize(byte status, Document doc, String message, byte[][] msgs, int i) {
    switch (status) {
      case RpcFormat.STATUS_FOUND:
        return RpcFormat.FOUND_FIXED_SIZE + (long) doc.body().length;
      case RpcFormat.STATUS_CORRUPT:
      case RpcFormat.STATUS_ERROR:
        msgs[i] = truncatedUtf8(message);
        return RpcFormat.MESSAGE_ENTRY_FIXED_SIZE + msgs[i].length;
      default:
        return 1;
    }
  }

  static void writeHeader(ByteBuf buf, byte opcode, long requestId) {
    buf.writeByte(RpcFormat.VERSION);
    buf.writeByte(opcode);
    buf.writeLong(requestId);
  }

  /** UTF-8 bytes of {@code s}, cut to at most {@link RpcFormat#MAX_MESSAGE_BYTES}. */
  static byte[] truncatedUtf8(String s) {
    String text = s == null ? "" : s;
    if (ByteBufUtil.utf8MaxBytes(text) <= RpcFormat.MAX_MESSAGE_BYTES) {
      return text.getBytes(StandardCharsets.UTF_8);
    }
    // Cut by characters until it fits; never splits a surrogate pair.
    int end = Math.min(text.length(), RpcFormat.MAX_MESSAGE_BYTES / 3);
    if (end > 0 && Character.isHighSurrogate(text.charAt(end - 1))) {
      end--;
    }
    return text.substring(0, end).getBytes(StandardCharsets.UTF_8);
  }
}
