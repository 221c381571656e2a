package io.docstore.client;

import io.docstore.client.wire.RpcFrameDecoder;
import io.docstore.client.wire.RpcResponse;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One persistent, multiplexed connection to one server. Requests are matched to responses by
 * request id, so they may complete in any order. When the connection drops, every pending request
 * fails with {@link ConnectionLostException} and the connection is re-established in the background
 * with exponential backoff (50 ms doubling to 1 s); the {@link SlotTable} marks the server down
 * meanwhile. Thread-safe.
 */
final class ServerConnection {

  private static final Logger log = LoggerFactory.getLogger(ServerConnection.class);
  private static final long MIN_BACKOFF_MS = 50;
  private static final long MAX_BACKOFF_MS = 1000;

  /** A request frame, encoded with the connection's allocator. */
  @FunctionalInterface
  interface Frame {
    ByteBuf encode(ByteBufAllocator alloc);
  }

  /** The connection failed (or could not be used) while a request was outstanding. */
  static final class ConnectionLostException extends IOException {
    ConnectionLostException(String message) {
      super(message);
    }
  }

  private final int index;
  private final InetSocketAddress address;
  private final SlotTable slots;
  private final Bootstrap bootstrap;
  private final ConcurrentHashMap<Long, CompletableFuture<RpcResponse>> pending =
      new ConcurrentHashMap<>();
  private volatile Channel channel;
  private volatile boolean closed;
  private long backoffMs = MIN_BACKOFF_MS;

  ServerConnection(
      int index,
      InetSocketAddress address,
      SlotTable slots,
      EventLoopGroup group,
      Duration connectTimeout,
      int maxResponseBytes) {
    this.index = index;
    this.address = address;
    this.slots = slots;
    this.bootstrap =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) connectTimeout.toMillis())
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline()
                        .addLast(new RpcFrameDecoder(maxResponseBytes))
                        .addLast(new ResponseHandler());
                  }
                });
  }

  InetSocketAddress address() {
    return address;
  }

  /** Starts connecting; the slot table learns when the server is usable. */
  void connect() {
    if (closed) {
      return;
    }
    bootstrap.connect(address).addListener((ChannelFuture f) -> onConnect(f));
  }

  private void onConnect(ChannelFuture f) {
    if (!f.isSuccess()) {
      log.debug("rpc client: cannot connect to {}: {}", address, f.cause().toString());
      scheduleReconnect(f.channel());
      return;
    }
    Channel ch = f.channel();
    if (closed) {
      ch.close();
      return;
    }
    channel = ch;
    backoffMs = MIN_BACKOFF_MS;
    ch.closeFuture().addListener(cf -> onClosed(ch));
    slots.setUp(index, true);
    log.info("rpc client: connected to {}", address);
  }

  private void onClosed(Channel ch) {
    slots.setUp(index, false);
    if (channel == ch) {
      channel = null;
    }
    ConnectionLostException lost =
        new ConnectionLostException("connection to " + address + " lost");
    pending.values().forEach(p -> p.completeExceptionally(lost));
    if (!closed) {
      log.warn("rpc client: connection to {} lost; reconnecting", address);
      scheduleReconnect(ch);
    }
  }

  /** Runs on the channel's event loop (connect and close listeners), so backoff is confined. */
  private void scheduleReconnect(Channel ch) {
    if (closed) {
      return;
    }
    long delay = backoffMs;
    backoffMs = Math.min(MAX_BACKOFF_MS, backoffMs * 2);
    ch.eventLoop().schedule(this::connect, delay, TimeUnit.MILLISECONDS);
  }

  /**
   * Sends {@code frame}, which carries {@code requestId}, and waits for its response.
   *
   * @throws ConnectionLostException if the connection fails or is not up
   * @throws TimeoutException if no response comes within {@code timeoutNanos}
   */
  RpcResponse call(long requestId, Frame frame, long timeoutNanos)
      throws IOException, TimeoutException, InterruptedException {
    Channel ch = channel;
    if (ch == null || !ch.isActive()) {
      throw new ConnectionLostException("not connected to " + address);
    }
    CompletableFuture<RpcResponse> future = new CompletableFuture<>();
    pending.put(requestId, future);
    try {
      ch.writeAndFlush(frame.encode(ch.alloc()))
          .addListener(
              wf -> {
                if (!wf.isSuccess()) {
                  future.completeExceptionally(
                      new ConnectionLostException(
                          "write to " + address + " failed: " + wf.cause()));
                }
              });
      if (!ch.isActive()) {
        // Closed between the check and the registration: onClosed may have swept already.
        future.completeExceptionally(
            new ConnectionLostException("connection to " + address + " lost"));
      }
      return future.get(timeoutNanos, TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof IOException) {
        throw (IOException) c;
      }
      throw new ConnectionLostException("request to " + address + " failed: " + c);
    } finally {
      pending.remove(requestId);
    }
  }

  void close() {
    closed = true;
    Channel ch = channel;
    if (ch != null) {
      ch.close().awaitUninterruptibly();
    }
  }

  /** Matches responses to pending requests; a frame it cannot parse closes the connection. */
  private final class ResponseHandler extends SimpleChannelInboundHandler<ByteBuf> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
      RpcResponse response = RpcResponse.decode(frame);
      CompletableFuture<RpcResponse> p = pending.get(response.requestId());
      if (p != null) {
        p.complete(response);
      } else if (response.isError()) {
        log.warn("rpc client: {} reported {}", address, response.message());
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      log.warn("rpc client: closing connection to {}: {}", address, cause.toString());
      ctx.close();
    }
  }
}
