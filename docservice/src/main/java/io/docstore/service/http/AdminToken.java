package io.docstore.service.http;

import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * The admin port's bearer token ({@code http.admin.token}), checked the same way on a primary and
 * on a replica: with a token configured, every request needs {@code Authorization: Bearer <token>}
 * (compared in constant time), else it is answered 401; except a GET or HEAD of {@code /healthz},
 * {@code /readyz} or {@code /metrics}, which load balancers and Prometheus ask without credentials
 * (they reveal no document; {@code /stats} stays behind the token), and of the admin page's static
 * files ({@link AdminPage}: a browser cannot send the header when it opens a page; they hold no
 * data, and the page sends the token with each of its data calls). Immutable; thread-safe.
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
    if (expected == null || probe(req)) {
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

  /**
   * A health, readiness or metrics probe, or one of the admin page's static files: GET or HEAD of
   * one of those paths, nothing more.
   */
  private static boolean probe(FullHttpRequest req) {
    if (!req.method().equals(HttpMethod.GET) && !req.method().equals(HttpMethod.HEAD)) {
      return false;
    }
    String uri = req.uri();
    int q = uri.indexOf('?');
    String path = q < 0 ? uri : uri.substring(0, q);
    return path.equals("/healthz")
        || path.equals("/readyz")
        || path.equals("/metrics")
        || AdminPage.isAsset(path);
  }
}
