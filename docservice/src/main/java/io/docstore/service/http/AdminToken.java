package io.docstore.service.http;

import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * The admin port's bearer token ({@code http.admin.token}), checked the same way on a primary and
 * on a replica: with a token configured, every request needs {@code Authorization: Bearer <token>}
 * (compared in constant time), else it is answered 401. Immutable; thread-safe.
 */
public final class AdminToken {

  private final byte[] expected;

  /**
   * @param token empty for no authentication
   */
  public AdminToken(String token) {
    this.expected = token.isEmpty() ? null : ("Bearer " + token).getBytes(StandardCharsets.UTF_8);
  }

  /** The 401 to answer {@code req} with, or null if it may proceed. */
  public FullHttpResponse refuse(FullHttpRequest req) {
    if (expected == null) {
      return null;
    }
    String auth = req.headers().get(HttpHeaderNames.AUTHORIZATION, "");
    if (MessageDigest.isEqual(auth.getBytes(StandardCharsets.UTF_8), expected)) {
      return null;
    }
    FullHttpResponse r =
        Responses.error(HttpResponseStatus.UNAUTHORIZED, "missing or wrong admin token");
    r.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer");
    return r;
  }
}
