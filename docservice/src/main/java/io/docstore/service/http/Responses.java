package io.docstore.service.http;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;

/** Builders for the few response shapes the HTTP APIs use. Stateless. */
public final class Responses {

  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(Responses.class);

  /**
   * The 500 for a document read that failed: a damaged record ({@link
   * io.docstore.io.CorruptionException}; the log names the file and offset, a client is not told
   * where the server keeps its files) or another I/O error. Logged at ERROR.
   */
  public static FullHttpResponse readFailed(java.io.IOException e) {
    if (e instanceof io.docstore.io.CorruptionException) {
      log.error("corrupt document data: {}", e.getMessage());
      return json(
          HttpResponseStatus.INTERNAL_SERVER_ERROR,
          "{\"error\":\"corrupt\",\"detail\":\"this document's stored record is damaged (the"
              + " server's log says where); other documents are not affected\"}");
    }
    log.error("read failed: {}", e.toString());
    return error(HttpResponseStatus.INTERNAL_SERVER_ERROR, "read failed: " + e.getMessage());
  }

  private Responses() {}

  public static FullHttpResponse json(HttpResponseStatus status, byte[] body) {
    return bytes(status, body, HttpHeaderValues.APPLICATION_JSON.toString());
  }

  public static FullHttpResponse json(HttpResponseStatus status, String body) {
    return json(status, body.getBytes(StandardCharsets.UTF_8));
  }

  /** A JSON response whose content is {@code body} (the response takes over its reference). */
  public static FullHttpResponse json(HttpResponseStatus status, ByteBuf body) {
    return bytes(status, body, HttpHeaderValues.APPLICATION_JSON);
  }

  public static FullHttpResponse bytes(HttpResponseStatus status, byte[] body, String contentType) {
    return bytes(status, Unpooled.wrappedBuffer(body), contentType);
  }

  private static FullHttpResponse bytes(
      HttpResponseStatus status, ByteBuf body, CharSequence contentType) {
    // No trailers: the shared empty set instead of a second header map per response (an allocation
    // profile of the read port had the two header maps' arrays as its second largest item).
    FullHttpResponse r =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1,
            status,
            body,
            DefaultHttpHeadersFactory.headersFactory().newHeaders(),
            EmptyHttpHeaders.INSTANCE);
    r.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
    r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
    return r;
  }

  /** {@code {"error": reason}} with {@code status}. */
  public static FullHttpResponse error(HttpResponseStatus status, String reason) {
    return json(status, "{\"error\":\"" + escape(reason) + "\"}");
  }

  /**
   * A JSON string literal's content for {@code s} (quotes, backslashes, control characters
   * escaped).
   */
  public static String escape(String s) {
    return new String(JsonStringEncoder.getInstance().quoteAsString(s));
  }
}
