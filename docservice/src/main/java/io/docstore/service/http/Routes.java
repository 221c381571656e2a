package io.docstore.service.http;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;

/**
 * The request handling of one port. {@link #handle} is called on a worker thread (never the network
 * thread), so it may block on the store; {@link #handleWithoutBlocking} is tried first on the
 * network thread. Neither may retain {@code request} after returning.
 */
@FunctionalInterface
public interface Routes {

  /**
   * The response to {@code request}. Client errors are responses, not exceptions; an exception
   * thrown here is answered 500 and logged.
   */
  FullHttpResponse handle(FullHttpRequest request) throws Exception;

  /**
   * The response to {@code request} if it can be made without blocking (on the network thread,
   * saving the hand-off to a worker and back), else null: then {@link #handle} runs on a worker.
   * Must not block, throw, or retain {@code request}. {@code alloc} is the channel's (pooled)
   * allocator, for a response body written without a copy on the heap.
   */
  default FullHttpResponse handleWithoutBlocking(FullHttpRequest request, ByteBufAllocator alloc) {
    return null;
  }
}
