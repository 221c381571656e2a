package io.docstore.service.rpc;

import io.docstore.client.Document;
import io.docstore.client.wire.RpcFormat;
import io.docstore.client.wire.RpcFrameDecoder;
import io.docstore.client.wire.RpcFrames;
import io.docstore.client.wire.RpcProtocolException;
import io.docstore.io.CorruptionException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection's request handling. Event-loop confined except the lookup task, which touches only
 * its own arrays and hands the encoded frame back to the channel.
 */
final class RpcServerHandler extends ChannelInboundHandlerAdapter {

  private static final Logger log = LoggerFactory.getLogger(RpcServerHandler.class);

  private final RpcServer server;
  private final RpcFrameDecoder decoder;

  /** Requests read but not yet answered on this connection; event loop only. */
  private int inFlight;

  private boolean counted;

  RpcServerHandler(RpcServer server, RpcFrameDecoder decoder) {
    this.server = server;
    this.decoder = decoder;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    counted = true;
    if (server.connections.incrementAndGet() > server.options.maxConnections || server.isClosed()) {
      int code = server.isClosed() ? RpcFormat.ERR_SHUTTING_DOWN : RpcFormat.ERR_OVERLOADED;
      errorAndClose(ctx, RpcFormat.NO_REQUEST_ID, code, "connection limit reached");
      return;
    }
    server.channels.add(ctx.channel());
    ctx.fireChannelActive();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (counted) {
      server.connections.decrementAndGet();
      counted = false;
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ByteBuf frame = (ByteBuf) msg;
    try {
      handleFrame(ctx, frame);
    } finally {
      frame.release();
    }
  }

  private void handleFrame(ChannelHandlerContext ctx, ByteBuf frame) {
    // The decoder guarantees at least a whole header.
    byte version = frame.readByte();
    byte opcode = frame.readByte();
    long requestId = frame.readLong();
    if (version != RpcFormat.VERSION) {
      errorAndClose(
          ctx,
          requestId,
          RpcFormat.ERR_BAD_VERSION,
          "version " + version + " not supported; this server speaks " + RpcFormat.VERSION);
      return;
    }
    if (opcode == RpcFormat.OP_POSITION) {
      position(ctx, requestId, frame);
      return;
    }
    String group = null;
    String op = "GET_MANY";
    if (opcode == RpcFormat.OP_GET_MANY_GROUP) {
      op = "GET_MANY_GROUP";
      group = readGroup(ctx, requestId, frame);
      if (group == null) {
        return; // answered malformed; the connection closes
      }
    } else if (opcode != RpcFormat.OP_GET_MANY) {
      error(ctx, requestId, RpcFormat.ERR_BAD_OPCODE, "unknown opcode " + opcode);
      return;
    }
    if (frame.readableBytes() < 4) {
      errorAndClose(ctx, requestId, RpcFormat.ERR_MALFORMED, op + " without a count");
      return;
    }
    long count = frame.readUnsignedInt();
    if (frame.readableBytes() != 8 * count) {
      errorAndClose(
          ctx,
          requestId,
          RpcFormat.ERR_MALFORMED,
          op + " declares " + count + " IDs but carries " + frame.readableBytes() + " bytes");
      return;
    }
    if (count > server.options.maxIdsPerRequest) {
      error(
          ctx,
          requestId,
          RpcFormat.ERR_TOO_MANY_IDS,
          count + " IDs, at most " + server.options.maxIdsPerRequest + " per request");
      return;
    }
    long[] ids = new long[(int) count];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = frame.readLong();
      if (ids[i] < 0) {
        error(ctx, requestId, RpcFormat.ERR_BAD_ID, "negative ID " + ids[i] + " at index " + i);
        return;
      }
    }
    if (server.cluster != null) {
      for (long id : ids) {
        String why = server.cluster.misrouted(id);
        if (why != null) {
          error(ctx, requestId, RpcFormat.ERR_WRONG_SHARD, why);
          return;
        }
      }
    }
    String g = group;
    submit(ctx, requestId, start -> answer(ctx, requestId, ids, g, start));
  }

  /**
   * POSITION: how far reads here see a partition of the update log. Answered on the lookup pool
   * like a lookup (a source may take its time), with -1 for a partition the source cannot follow.
   */
  private void position(ChannelHandlerContext ctx, long requestId, ByteBuf frame) {
    if (frame.readableBytes() != 4) {
      errorAndClose(
          ctx,
          requestId,
          RpcFormat.ERR_MALFORMED,
          "POSITION carries " + frame.readableBytes() + " bytes, not a partition (4)");
      return;
    }
    long partition = frame.readUnsignedInt();
    submit(ctx, requestId, start -> answerPosition(ctx, requestId, partition, start));
  }

  /** Runs on the lookup pool; always answers. */
  private void answerPosition(
      ChannelHandlerContext ctx, long requestId, long partition, long start) {
    ByteBuf out;
    try {
      long next;
      try {
        next =
            partition > Integer.MAX_VALUE ? -1 : server.source.visibleLogPosition((int) partition);
      } catch (IllegalArgumentException e) {
        next = -1; // a partition number the source cannot follow: nothing of it is here
      }
      out = RpcFrames.positionAnswer(ctx.alloc(), requestId, partition, next);
    } catch (IOException | RuntimeException e) {
      log.error("rpc: request {} (POSITION {}) failed", requestId, partition, e);
      countError(RpcFormat.ERR_INTERNAL);
      out = RpcFrames.error(ctx.alloc(), requestId, RpcFormat.ERR_INTERNAL, String.valueOf(e));
    }
    respond(ctx, out, start);
  }

  /** What a request does on the lookup pool, given when it was read. */
  @FunctionalInterface
  private interface Task {
    void run(long start);
  }

  /**
   * Counts a request read and hands {@code task} to the lookup pool (never the event loop); a full
   * queue is answered {@code overloaded} (or {@code shutting_down}) at once.
   */
  private void submit(ChannelHandlerContext ctx, long requestId, Task task) {
    server.requests.increment();
    inFlight++;
    updateAutoRead(ctx);
    long start = System.nanoTime();
    try {
      server.lookups.execute(() -> task.run(start));
    } catch (RejectedExecutionException e) {
      inFlight--;
      updateAutoRead(ctx);
      int code = server.isClosed() ? RpcFormat.ERR_SHUTTING_DOWN : RpcFormat.ERR_OVERLOADED;
      writeError(ctx, requestId, code, "lookup queue full, retry later or elsewhere");
    }
  }

  /** Writes a request's answer; once written, the request no longer counts as in flight. */
  private void respond(ChannelHandlerContext ctx, ByteBuf out, long start) {
    ctx.writeAndFlush(out)
        .addListener(
            f -> {
              inFlight--;
              updateAutoRead(ctx);
              server.latency.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
            });
  }

  /**
   * The group name of a GET_MANY_GROUP, read up to its count; null when its length is 0, above
   * {@link RpcFormat#MAX_GROUP_NAME_BYTES} or past the frame (then answered {@code malformed}, and
   * the connection closes, as for the other framing errors).
   */
  private String readGroup(ChannelHandlerContext ctx, long requestId, ByteBuf frame) {
    if (!frame.isReadable()) {
      errorAndClose(ctx, requestId, RpcFormat.ERR_MALFORMED, "GET_MANY_GROUP without a group");
      return null;
    }
    int len = frame.readUnsignedByte();
    if (len == 0 || len > RpcFormat.MAX_GROUP_NAME_BYTES) {
      errorAndClose(
          ctx,
          requestId,
          RpcFormat.ERR_MALFORMED,
          "group name of "
              + len
              + " bytes; a group name is 1 to "
              + RpcFormat.MAX_GROUP_NAME_BYTES
              + " bytes");
      return null;
    }
    if (frame.readableBytes() < len) {
      errorAndClose(
          ctx,
          requestId,
          RpcFormat.ERR_MALFORMED,
          "group name of " + len + " bytes, but " + frame.readableBytes() + " bytes are left");
      return null;
    }
    return frame.readCharSequence(len, StandardCharsets.UTF_8).toString();
  }

  /**
   * Runs on the lookup pool. Always answers, so the in-flight count always comes back down. {@code
   * group} is null for GET_MANY (whole documents), else the group of a GET_MANY_GROUP.
   */
  private void answer(
      ChannelHandlerContext ctx, long requestId, long[] ids, String group, long start) {
    ByteBuf out;
    try {
      byte[] statuses = new byte[ids.length];
      String[] messages = new String[ids.length];
      Document[] docs =
          group == null ? lookup(ids, statuses, messages) : lookup(ids, group, statuses, messages);
      out =
          RpcFrames.docs(
              ctx.alloc(), requestId, statuses, docs, messages, server.options.maxResponseBytes);
    } catch (UnknownGroupException e) {
      countError(RpcFormat.ERR_UNKNOWN_GROUP);
      out = RpcFrames.error(ctx.alloc(), requestId, RpcFormat.ERR_UNKNOWN_GROUP, e.getMessage());
    } catch (RuntimeException e) {
      log.error("rpc: request {} failed", requestId, e);
      countError(RpcFormat.ERR_INTERNAL);
      out = RpcFrames.error(ctx.alloc(), requestId, RpcFormat.ERR_INTERNAL, String.valueOf(e));
    }
    respond(ctx, out, start);
  }

  /** A GET_MANY_GROUP named a group the source does not have; the message is the source's. */
  private static final class UnknownGroupException extends Exception {
    UnknownGroupException(String message) {
      super(message);
    }
  }

  /** One document's lookup, for the one-by-one pass after a batch failed. */
  @FunctionalInterface
  private interface OneLookup {
    Document get(long id) throws IOException;
  }

  private Document[] lookup(long[] ids, byte[] statuses, String[] messages) {
    Document[] docs;
    try {
      docs = server.source.getAll(ids);
      if (docs == null || docs.length != ids.length) {
        throw new IllegalStateException("DocumentSource.getAll returned a wrong-sized result");
      }
    } catch (IOException | RuntimeException batchFailure) {
      docs = oneByOne(ids, statuses, messages, server.source::get);
    }
    tally(docs, statuses);
    return docs;
  }

  /**
   * GET_MANY_GROUP: group {@code group}'s projections, through the same batch-then-one-by-one path
   * as {@link #lookup(long[], byte[], String[])}.
   *
   * @throws UnknownGroupException if the source refuses the group as not one of its groups (its
   *     message names the groups it has)
   */
  private Document[] lookup(long[] ids, String group, byte[] statuses, String[] messages)
      throws UnknownGroupException {
    OneLookup one = id -> server.source.getAll(new long[] {id}, group)[0];
    Document[] docs;
    try {
      docs = server.source.getAll(ids, group);
      if (docs == null || docs.length != ids.length) {
        throw new IllegalStateException("DocumentSource.getAll returned a wrong-sized result");
      }
    } catch (IllegalArgumentException e) {
      if (!server.source.groups().has(group)) {
        throw new UnknownGroupException(String.valueOf(e.getMessage()));
      }
      docs = oneByOne(ids, statuses, messages, one);
    } catch (IOException | RuntimeException batchFailure) {
      docs = oneByOne(ids, statuses, messages, one);
    }
    tally(docs, statuses);
    return docs;
  }

  /** Finds which documents fail, after a batch lookup failed, so the others are still served. */
  private static Document[] oneByOne(
      long[] ids, byte[] statuses, String[] messages, OneLookup one) {
    Document[] docs = new Document[ids.length];
    for (int i = 0; i < ids.length; i++) {
      try {
        docs[i] = one.get(ids[i]);
      } catch (CorruptionException e) {
        statuses[i] = RpcFormat.STATUS_CORRUPT;
        messages[i] = e.getMessage();
        // The store logs corruption with file and offset; here it is counted per document.
        log.debug("rpc: document {} is corrupt: {}", ids[i], e.getMessage());
      } catch (IOException | RuntimeException e) {
        statuses[i] = RpcFormat.STATUS_ERROR;
        messages[i] = String.valueOf(e.getMessage());
        log.warn("rpc: lookup of document {} failed", ids[i], e);
      }
    }
    return docs;
  }

  /** Turns null documents into MISSING and counts each entry's status. */
  private void tally(Document[] docs, byte[] statuses) {
    for (int i = 0; i < docs.length; i++) {
      if (statuses[i] == RpcFormat.STATUS_FOUND) {
        if (docs[i] == null) {
          statuses[i] = RpcFormat.STATUS_MISSING;
          server.missing.increment();
        } else {
          server.found.increment();
        }
      } else if (statuses[i] == RpcFormat.STATUS_CORRUPT) {
        server.corrupt.increment();
      } else {
        server.failed.increment();
      }
    }
  }

  /** Reads while this connection has room for more in-flight requests and its writes drain. */
  private void updateAutoRead(ChannelHandlerContext ctx) {
    boolean read = inFlight < server.options.maxInFlightPerConnection && ctx.channel().isWritable();
    if (ctx.channel().config().isAutoRead() != read) {
      ctx.channel().config().setAutoRead(read);
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    updateAutoRead(ctx);
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof IdleStateEvent) {
      IdleState state = ((IdleStateEvent) evt).state();
      if (state == IdleState.READER_IDLE && decoder.hasPartialFrame()) {
        errorAndClose(
            ctx,
            RpcFormat.NO_REQUEST_ID,
            RpcFormat.ERR_MALFORMED,
            "incomplete frame for " + server.options.frameTimeout.toMillis() + " ms");
      } else if (state == IdleState.ALL_IDLE && inFlight == 0) {
        ctx.close();
      }
      return;
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    Throwable c =
        cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
    if (c instanceof RpcProtocolException) {
      RpcProtocolException e = (RpcProtocolException) c;
      errorAndClose(ctx, RpcFormat.NO_REQUEST_ID, e.code(), e.detail());
    } else if (c instanceof IOException) {
      log.debug("rpc: connection {} failed: {}", ctx.channel().remoteAddress(), c.toString());
      ctx.close();
    } else {
      log.warn("rpc: unexpected error on {}", ctx.channel().remoteAddress(), c);
      ctx.close();
    }
  }

  private void error(ChannelHandlerContext ctx, long requestId, int code, String message) {
    countError(code);
    writeError(ctx, requestId, code, message);
  }

  private void writeError(ChannelHandlerContext ctx, long requestId, int code, String message) {
    ctx.writeAndFlush(RpcFrames.error(ctx.alloc(), requestId, code, message));
  }

  private void errorAndClose(ChannelHandlerContext ctx, long requestId, int code, String message) {
    countError(code);
    log.debug(
        "rpc: closing {} after {}: {}",
        ctx.channel().remoteAddress(),
        RpcFormat.errorName(code),
        message);
    ctx.writeAndFlush(RpcFrames.error(ctx.alloc(), requestId, code, message))
        .addListener(ChannelFutureListener.CLOSE);
  }

  private void countError(int code) {
    server.registry.counter("docstore.rpc.errors", "code", RpcFormat.errorName(code)).increment();
  }
}
