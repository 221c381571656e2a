package io.docstore.service.http;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Closes connections beyond a maximum per port at once. Shared by all channels of a server;
 * thread-safe.
 */
@ChannelHandler.Sharable
final class ConnectionLimiter extends ChannelInboundHandlerAdapter {

  private final int max;
  private final AtomicInteger open = new AtomicInteger();

  ConnectionLimiter(int max) {
    this.max = max;
  }

  int open() {
    return open.get();
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    if (open.incrementAndGet() > max) {
      ctx.close();
      return;
    }
    super.channelActive(ctx);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    open.decrementAndGet();
    super.channelInactive(ctx);
  }
}
