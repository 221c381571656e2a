package io.docstore.service.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * Aggregates request bodies up to a limit; a larger body is answered 413 with a JSON reason and the
 * connection closed (the rest of the body is not read, so the stream cannot be re-synchronised).
 */
final class OversizeAwareAggregator extends HttpObjectAggregator {

  private final int max;

  OversizeAwareAggregator(int max) {
    super(max);
    this.max = max;
  }

  @Override
  protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
    HttpDispatcher.closeAfter(
        ctx,
        Responses.error(
            HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
            "request body over the limit of " + max + " bytes"));
  }
}
