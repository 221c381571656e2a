package io.docstore.client.wire;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Splits the byte stream into frame bodies (the bytes after the length field), used by both the
 * server and the client. A declared length above {@code maxFrameBytes} or below the smallest legal
 * body raises {@link RpcProtocolException} before any of the body is buffered, so a hostile length
 * can never make the peer allocate. After an error the decoder discards all further input: the
 * caller answers and closes. Not sharable (one per channel).
 */
public final class RpcFrameDecoder extends ByteToMessageDecoder {

  private final int maxFrameBytes;
  private boolean failed;

  /**
   * @param maxFrameBytes the largest accepted body length (the length field's value)
   */
  public RpcFrameDecoder(int maxFrameBytes) {
    this.maxFrameBytes = maxFrameBytes;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (failed) {
      in.skipBytes(in.readableBytes());
      return;
    }
    if (in.readableBytes() < RpcFormat.LENGTH_SIZE) {
      return;
    }
    long length = in.getUnsignedInt(in.readerIndex() + RpcFormat.LENGTH_OFFSET);
    if (length > maxFrameBytes) {
      fail(in);
      throw new RpcProtocolException(
          RpcFormat.ERR_FRAME_TOO_LARGE, "frame of " + length + " bytes, limit " + maxFrameBytes);
    }
    if (length < RpcFormat.MIN_BODY_SIZE) {
      fail(in);
      throw new RpcProtocolException(
          RpcFormat.ERR_MALFORMED,
          "frame of " + length + " bytes, shorter than a header (" + RpcFormat.MIN_BODY_SIZE + ")");
    }
    if (in.readableBytes() < RpcFormat.LENGTH_SIZE + length) {
      return;
    }
    in.skipBytes(RpcFormat.LENGTH_SIZE);
    out.add(in.readRetainedSlice((int) length));
  }

  /** Whether bytes of an incomplete frame are buffered (event loop only). */
  public boolean hasPartialFrame() {
    return !failed && actualReadableBytes() > 0;
  }

  private void fail(ByteBuf in) {
    failed = true;
    in.skipBytes(in.readableBytes());
  }
}
