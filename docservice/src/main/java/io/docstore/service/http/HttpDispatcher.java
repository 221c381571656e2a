package io.docstore.service.http;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.handler.timeout.IdleStateEvent;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per-connection request dispatch: answers on the network thread what {@link
 * Routes#handleWithoutBlocking} can (cache hits), runs every other request's {@link Routes} on the
 * worker executor (the network thread never blocks on the store), and writes the responses back in
 * request order, which HTTP/1.1 pipelining requires even when later requests finish first.
 *
 * <p>Back-pressure: the connection stops reading while more than {@link #MAX_IN_FLIGHT} of its
 * requests are outstanding, while its outbound buffer is above the high water mark, or while it
 * holds more than {@link #FAIR_SHARE} bytes of answers (a client that does not read what it asked
 * for), and reads again once all three have drained. A connection's answers up to its fair share
 * are always kept (a client that reads its answers holds little, so it is always served); beyond it
 * they count against the port's {@link ResponseBudget}, and one that does not fit is answered 503
 * instead. A full executor answers 503.
 *
 * <p>One instance per channel; its state is touched only on the channel's event loop.
 */
final class HttpDispatcher extends ChannelInboundHandlerAdapter {

  private static final Logger log = LoggerFactory.getLogger(HttpDispatcher.class);
  static final int MAX_IN_FLIGHT = 64;

  /** Bytes of answers a connection may hold without drawing on the port's budget. */
  static final int FAIR_SHARE = 1 << 20;

  /** How long a closing connection keeps draining a client that is still sending. */
  static final long LINGER_MILLIS = 2_000;

  private final Routes routes;
  private final Executor workers;
  private final ArrayDeque<Pending> inFlight = new ArrayDeque<>();
  private final ResponseBudget budget;

  /** Bytes of this connection's answers held (built, not yet handed to the kernel). */
  private long connectionHeld;

  /** One request's slot in the response order. */
  private static final class Pending {
    final boolean keepAlive;
    final boolean head;
    final boolean http10;
    FullHttpResponse response;

    /** Bytes of {@link #response} taken from the budget. */
    int held;

    /** Abandoned (connection closed): a late response is released at once. */
    boolean dropped;

    boolean close;

    /** When the request arrived, and its route ({@link HttpMeters#routeOf}). */
    final long startNanos;

    final int route;

    Pending(boolean keepAlive, boolean head, boolean http10, int route) {
      this.keepAlive = keepAlive;
      this.head = head;
      this.http10 = http10;
      this.route = route;
      this.startNanos = System.nanoTime();
    }
  }

  private final HttpMeters meters;

  HttpDispatcher(Routes routes, Executor workers, ResponseBudget budget, HttpMeters meters) {
    this.routes = routes;
    this.workers = workers;
    this.budget = budget;
    this.meters = meters;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof FullHttpRequest req)) {
      ctx.fireChannelRead(msg);
      return;
    }
    RequestTimeoutHandler timeout = ctx.pipeline().get(RequestTimeoutHandler.class);
    if (timeout != null) {
      timeout.requestComplete();
    }
    Pending p =
        new Pending(
            HttpUtil.isKeepAlive(req),
            req.method().equals(HttpMethod.HEAD),
            req.protocolVersion().equals(HttpVersion.HTTP_1_0),
            HttpMeters.routeOf(req.uri()));
    inFlight.add(p);
    if (inFlight.size() >= MAX_IN_FLIGHT) {
      ctx.channel().config().setAutoRead(false);
    }
    DecoderResult dr = req.decoderResult();
    if (dr.isFailure()) {
      req.release();
      complete(ctx, p, decodeError(dr.cause()), true);
      return;
    }
    HttpVersion v = req.protocolVersion();
    if (!v.protocolName().equals("HTTP") || v.majorVersion() != 1) {
      req.release();
      complete(
          ctx,
          p,
          Responses.error(
              v.protocolName().equals("HTTP")
                  ? HttpResponseStatus.HTTP_VERSION_NOT_SUPPORTED
                  : HttpResponseStatus.BAD_REQUEST,
              "unsupported protocol " + v.text() + ": HTTP/1.0 and HTTP/1.1 only"),
          true);
      return;
    }
    FullHttpResponse answered = routes.handleWithoutBlocking(req, ctx.alloc());
    if (answered != null) {
      req.release();
      complete(ctx, p, answered, false);
      return;
    }
    try {
      workers.execute(() -> run(ctx, p, req));
    } catch (RejectedExecutionException e) {
      req.release();
      complete(
          ctx,
          p,
          Responses.error(HttpResponseStatus.SERVICE_UNAVAILABLE, "server busy, retry later"),
          false);
    }
  }

  private void run(ChannelHandlerContext ctx, Pending p, FullHttpRequest req) {
    FullHttpResponse response;
    try {
      response = routes.handle(req);
    } catch (Exception | Error e) {
      log.error("request {} {} failed", req.method(), req.uri(), e);
      response = Responses.error(HttpResponseStatus.INTERNAL_SERVER_ERROR, "internal error: " + e);
    } finally {
      req.release();
    }
    FullHttpResponse r = response;
    ctx.executor().execute(() -> complete(ctx, p, r, false));
  }

  private static FullHttpResponse decodeError(Throwable cause) {
    if (cause instanceof TooLongHttpLineException) {
      return Responses.error(HttpResponseStatus.REQUEST_URI_TOO_LONG, "request line too long");
    }
    if (cause instanceof TooLongHttpHeaderException) {
      return Responses.error(
          HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "request headers too large");
    }
    return Responses.error(
        HttpResponseStatus.BAD_REQUEST, "malformed request: " + cause.getMessage());
  }

  /** Records {@code p}'s response and writes every finished response at the head of the queue. */
  private void complete(
      ChannelHandlerContext ctx, Pending p, FullHttpResponse response, boolean close) {
    if (p.dropped) {
      response.release(); // the connection closed, or an earlier response closed it
      return;
    }
    int bytes = response.content().capacity(); // what it holds, not just what it says
    if (connectionHeld + bytes <= FAIR_SHARE) {
      budget.acquire(bytes);
      hold(p, bytes);
    } else if (budget.tryAcquire(bytes)) {
      hold(p, bytes);
    } else {
      response.release();
      response =
          Responses.error(
              HttpResponseStatus.SERVICE_UNAVAILABLE,
              "server busy: too many answers are waiting for clients to read them; retry later");
    }
    meters.record(p.route, response.status().code(), System.nanoTime() - p.startNanos);
    p.response = response;
    p.close = close || !p.keepAlive;
    boolean wrote = false;
    while (!inFlight.isEmpty() && inFlight.peek().response != null) {
      Pending head = inFlight.poll();
      FullHttpResponse r = head.response;
      if (head.head) {
        r.content().clear();
      }
      if (!ctx.channel().isActive()) {
        r.release();
        releaseHeld(head);
        continue;
      }
      if (head.close) {
        ChannelFuture f = closeAfter(ctx, r);
        releaseWhenWritten(ctx, f, head);
        drop();
        return;
      }
      if (head.http10) {
        // HTTP/1.0 closes by default; a kept-alive 1.0 connection must say so in every response.
        r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
      }
      releaseWhenWritten(ctx, ctx.write(r), head);
      wrote = true;
    }
    if (wrote) {
      ctx.flush();
    }
    if (connectionHeld > FAIR_SHARE) {
      ctx.channel().config().setAutoRead(false);
    } else {
      resumeIfDrained(ctx);
    }
  }

  private void hold(Pending p, int bytes) {
    p.held = bytes;
    connectionHeld += bytes;
  }

  /** Reads again once few requests are outstanding and the client has read what was written. */
  private void resumeIfDrained(ChannelHandlerContext ctx) {
    if (inFlight.size() < MAX_IN_FLIGHT / 2
        && ctx.channel().isWritable()
        && connectionHeld <= FAIR_SHARE
        && !ctx.channel().config().isAutoRead()) {
      ctx.channel().config().setAutoRead(true);
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (!ctx.channel().isWritable()) {
      ctx.channel().config().setAutoRead(false);
    } else {
      resumeIfDrained(ctx);
    }
    ctx.fireChannelWritabilityChanged();
  }

  /** Gives the answer's bytes back once written (listeners run on this connection's event loop). */
  private void releaseWhenWritten(ChannelHandlerContext ctx, ChannelFuture f, Pending p) {
    if (p.held > 0) {
      int held = p.held;
      p.held = 0;
      f.addListener(
          done -> {
            budget.release(held);
            connectionHeld -= held;
            resumeIfDrained(ctx);
          });
    }
  }

  private void releaseHeld(Pending p) {
    if (p.held > 0) {
      budget.release(p.held);
      connectionHeld -= p.held;
      p.held = 0;
    }
  }

  /**
   * Sends a last response and closes without losing it: the output is shut down first (the client
   * reads the response and end-of-stream) and the socket is closed when the client closes its side
   * or after {@link #LINGER_MILLIS}. Closing at once while the client is still sending (a body over
   * the limit, an endless request line) would make the kernel reset the connection and discard the
   * response before the client reads it. Whatever arrives meanwhile is discarded by the decoder
   * (its state after an error) or the aggregator.
   */
  static ChannelFuture closeAfter(ChannelHandlerContext ctx, FullHttpResponse r) {
    r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    ChannelFuture written = ctx.writeAndFlush(r);
    written.addListener(
        (ChannelFutureListener)
            f -> {
              if (f.channel() instanceof SocketChannel sc && f.isSuccess()) {
                sc.shutdownOutput();
                ctx.executor()
                    .schedule(
                        () -> {
                          sc.close();
                        },
                        LINGER_MILLIS,
                        TimeUnit.MILLISECONDS);
              } else {
                f.channel().close();
              }
            });
    return written;
  }

  /** After a closing response, later pipelined requests are abandoned. */
  private void drop() {
    for (Pending rest : inFlight) {
      rest.dropped = true;
      if (rest.response != null) {
        rest.response.release();
        releaseHeld(rest);
      }
    }
    inFlight.clear();
  }

  /** A connection closed with responses still waiting for an earlier one gives their bytes back. */
  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    drop();
    ctx.fireChannelInactive();
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (evt == RequestTimeoutHandler.TIMED_OUT) {
      if (inFlight.isEmpty()) {
        closeAfter(
            ctx,
            Responses.error(HttpResponseStatus.REQUEST_TIMEOUT, "request not received in time"));
      } else {
        ctx.close();
      }
      return;
    }
    if (evt instanceof IdleStateEvent) {
      if (inFlight.isEmpty()) {
        ctx.close();
      }
      return;
    }
    super.userEventTriggered(ctx, evt);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    // Resets and broken pipes are the client's business, not ours: no stack trace.
    log.debug("connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
    ctx.close();
  }
}
