package io.docstore.service.http;

import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;

/**
 * The request handling of one port. Called on a worker thread (never the network thread), so it
 * may block on the store. Must not retain {@code request} after returning.
 */
@FunctionalInterface
public interface Routes {

  /**
   * The response to {@code request}. Client errors are responses, not exceptions; an exception
   * thrown here is answered 500 and logged.
   */
  FullHttpResponse handle(FullHttpRequest request) throws Exception;
}
