package io.docstore.service.http;

import io.docstore.client.Document;
import io.docstore.service.DocumentSource;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The admin page of an admin port, the same on a primary and a replica: {@code GET /ui} and its
 * script and style sheet (resources under {@code ui/} in the jar), and {@code GET /lookup/{id}},
 * one document for the page's lookup box. The page and its assets are static and hold no data, so
 * {@link AdminToken} lets them through without the token; the page's data calls ({@code /stats},
 * {@code /lookup/{id}}) send the token the user typed into the page as the {@code Authorization}
 * header (docs/decisions.md, "The admin page: the token typed into the page, sent as a header").
 * Thread-safe.
 */
public final class AdminPage {

  /** A static file of the page: its bytes and their media type. */
  private record Asset(byte[] body, String contentType) {}

  private static final Map<String, Asset> ASSETS =
      Map.of(
          "/ui", asset("index.html", "text/html; charset=utf-8"),
          "/ui/app.js", asset("app.js", "text/javascript; charset=utf-8"),
          "/ui/style.css", asset("style.css", "text/css; charset=utf-8"));

  /**
   * Only this origin's script, style and requests; no inline script, no plugins, no framing: a
   * second line of defence behind the page inserting everything it shows as text.
   */
  private static final String CONTENT_SECURITY_POLICY =
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self';"
          + " base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

  private static final String LOOKUP = "/lookup/";

  private final DocumentSource source;

  /**
   * @param source where {@code /lookup/{id}} reads documents
   */
  public AdminPage(DocumentSource source) {
    this.source = source;
  }

  /** Whether {@code path} is one of the page's static files (served without the token). */
  static boolean isAsset(String path) {
    return ASSETS.containsKey(path);
  }

  /**
   * The response for {@code path} if it is the page, one of its files or a lookup, else null.
   *
   * @throws BadRequest 405 for another method than GET or HEAD, 400 for a malformed ID
   */
  public FullHttpResponse handle(String path, HttpMethod method) throws BadRequest {
    Asset a = ASSETS.get(path);
    if (a != null) {
      requireGet(method);
      FullHttpResponse r = Responses.bytes(HttpResponseStatus.OK, a.body(), a.contentType());
      // Always fetched anew: a page from one version never runs with a script from another.
      r.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
      r.headers().set(HttpHeaderNames.CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY);
      r.headers().set("x-content-type-options", "nosniff");
      r.headers().set("referrer-policy", "no-referrer");
      return r;
    }
    if (path.startsWith(LOOKUP)) {
      requireGet(method);
      return lookup(DocumentIds.parse(path.substring(LOOKUP.length())));
    }
    return null;
  }

  /** The document as the read port answers it (ETag = sequence), never stored by the browser. */
  private FullHttpResponse lookup(long id) {
    FullHttpResponse r;
    try {
      Document d = source.get(id);
      if (d == null) {
        return Responses.error(HttpResponseStatus.NOT_FOUND, "document " + id + " not found");
      }
      r = Responses.json(HttpResponseStatus.OK, d.body());
      r.headers().set(HttpHeaderNames.ETAG, "\"" + d.sequence() + "\"");
    } catch (IOException e) {
      return Responses.readFailed(e);
    }
    r.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
    r.headers().set("x-content-type-options", "nosniff");
    return r;
  }

  private static void requireGet(HttpMethod m) throws BadRequest {
    if (!m.equals(HttpMethod.GET) && !m.equals(HttpMethod.HEAD)) {
      throw BadRequest.methodNotAllowed("GET, HEAD");
    }
  }

  private static Asset asset(String name, String contentType) {
    try (InputStream in = AdminPage.class.getResourceAsStream("/ui/" + name)) {
      if (in == null) {
        throw new IllegalStateException("ui/" + name + " is missing from the jar");
      }
      return new Asset(in.readAllBytes(), contentType);
    } catch (IOException e) {
      throw new UncheckedIOException("reading ui/" + name + " from the jar", e);
    }
  }
}
