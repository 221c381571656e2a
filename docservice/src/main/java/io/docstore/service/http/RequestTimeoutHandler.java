package io.docstore.service.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Bounds the time from the first byte of a request to its complete arrival (slow-loris clients that
 * trickle a request byte by byte defeat a plain idle timeout). Sits before the HTTP decoder; the
 * dispatcher calls {@link #requestComplete} when a whole request was decoded. On expiry it fires
 * {@link #TIMED_OUT} down the pipeline, and the dispatcher answers 408 and closes.
 *
 * <p>One instance per channel; used only on the channel's event loop.
 */
final class RequestTimeoutHandler extends ChannelInboundHandlerAdapter {

  /** User event fired when a request did not arrive in time. */
  static final Object TIMED_OUT =
      new Object() {
        @Override
        public String toString() {
          return "request timed out";
        }
      };

  private final long timeoutMillis;
  private ScheduledFuture<?> timer;

  RequestTimeoutHandler(long timeoutMillis) {
    this.timeoutMillis = timeoutMillis;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    if (timer == null) {
      timer =
          ctx.executor()
              .schedule(
                  () -> {
                    timer = null;
                    ctx.fireUserEventTriggered(TIMED_OUT);
                  },
                  timeoutMillis,
                  TimeUnit.MILLISECONDS);
    }
    super.channelRead(ctx, msg);
  }

  /** A whole request arrived; the next one starts its own clock when its first bytes arrive. */
  void requestComplete() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    requestComplete();
    super.channelInactive(ctx);
  }
}
