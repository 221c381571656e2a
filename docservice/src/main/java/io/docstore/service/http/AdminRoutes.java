package io.docstore.service.http;

import io.docstore.io.NoSpaceException;
import io.docstore.service.DocumentSink;
import io.docstore.service.DocumentSource;
import io.docstore.service.Update;
import io.docstore.service.Written;
import io.docstore.service.store.GroupKeys;
import io.docstore.service.updater.DocumentTooLargeException;
import io.docstore.service.updater.InvalidUpdateException;
import io.docstore.service.updater.UpdateParser;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin port: updates ({@code PUT|DELETE /docs/{id}}, {@code POST /docs/_bulk}) answered only
 * once durable, the ops endpoints ({@link HealthRoutes}; {@code /readyz} says "starting" until the
 * service is ready) and the admin page ({@link AdminPage}: {@code /ui}, {@code /lookup/{id}}). With
 * a configured token every request needs {@code Authorization: Bearer <token>} (compared in
 * constant time). Thread-safe.
 */
public final class AdminRoutes implements Routes {

  /** Request header naming a put's time to live in seconds. */
  static final String TTL_HEADER = "X-TTL";

  /** Request header naming a put's expiry time in epoch milliseconds. */
  static final String EXPIRES_AT_HEADER = "X-Expires-At";

  private static final Logger log = LoggerFactory.getLogger(AdminRoutes.class);

  private final DocumentSink sink;
  private final UpdateParser parser;
  private final int bulkMaxLines;
  private final AdminToken token;
  private final HealthRoutes health;
  private final AdminPage page;
  private final io.docstore.service.gc.Reclamation gc;

  /** Whether the store has field groups (then document IDs are below 2^62). */
  private final boolean groups;

  /** The message of the 409 that refuses writes (Kafka mode), or null: writes accepted. */
  private final String writesRefused;

  private final ClusterRoutes cluster;

  /**
   * @param source where the admin page's lookups read documents (the store {@code sink} writes)
   * @param token empty for no authentication
   * @param stats the {@code /stats} document (serialised with Jackson)
   * @param notReady null while {@code /readyz} answers 200, else the status its 503 gives ({@code
   *     "starting"}, {@code "draining"})
   * @param gc the store's space reclamation, paused and resumed through {@code /admin/gc/*}
   * @param writesRefused null to accept writes; else PUT, DELETE and {@code POST /docs/_bulk} are
   *     answered 409 with this message (Kafka mode: the topic is the only writer)
   * @param cluster the node's shard map, served and pushed at {@code /cluster}; null when it has
   *     none
   */
  public AdminRoutes(
      DocumentSink sink,
      DocumentSource source,
      UpdateParser parser,
      int bulkMaxLines,
      String token,
      Supplier<Object> stats,
      Supplier<String> notReady,
      PrometheusMeterRegistry registry,
      io.docstore.service.gc.Reclamation gc,
      String writesRefused,
      io.docstore.service.cluster.ClusterView cluster) {
    this.writesRefused = writesRefused;
    this.cluster = new ClusterRoutes(cluster, true);
    this.gc = java.util.Objects.requireNonNull(gc, "gc");
    this.sink = sink;
    this.parser = parser;
    this.bulkMaxLines = bulkMaxLines;
    this.token = new AdminToken(token);
    this.health = new HealthRoutes(stats, notReady, registry);
    this.page = new AdminPage(source);
    this.groups = source.groups().configured();
  }

  @Override
  public FullHttpResponse handle(FullHttpRequest req) throws Exception {
    FullHttpResponse refused = token.refuse(req);
    if (refused != null) {
      return refused;
    }
    try {
      return route(req);
    } catch (BadRequest e) {
      return Responses.error(HttpResponseStatus.valueOf(e.status()), e.getMessage());
    } catch (IllegalArgumentException e) {
      // The store refused the update before writing anything (e.g. an ID it cannot hold, or
      // projections over the body limit): nothing acknowledged.
      return Responses.error(HttpResponseStatus.BAD_REQUEST, e.getMessage());
    } catch (NoSpaceException e) {
      // Disk full: nothing acknowledged, not sticky (the store logs it, rate-limited).
      return Responses.error(
          HttpResponseStatus.INSUFFICIENT_STORAGE,
          "disk full, nothing acknowledged; reads "
              + "continue and writes resume once space is freed: "
              + e.getMessage());
    } catch (IOException e) {
      // The store could not make the write durable (fsync failure, I/O error): nothing
      // acknowledged.
      log.error("write failed: {}", e.toString());
      return Responses.error(
          HttpResponseStatus.SERVICE_UNAVAILABLE,
          "write failed, nothing acknowledged: " + e.getMessage());
    }
  }

  private FullHttpResponse route(FullHttpRequest req) throws BadRequest, IOException {
    String path;
    try {
      path = new QueryStringDecoder(req.uri()).rawPath();
    } catch (IllegalArgumentException e) {
      throw new BadRequest("malformed URI: " + e.getMessage());
    }
    HttpMethod m = req.method();
    FullHttpResponse ops = health.handle(path, m);
    if (ops != null) {
      return ops;
    }
    FullHttpResponse ui = page.handle(path, m);
    if (ui != null) {
      return ui;
    }
    switch (path) {
      case "/cluster" -> {
        return cluster.handle(req);
      }
      case "/docs/_bulk" -> {
        require(m, HttpMethod.POST, "POST");
        if (writesRefused != null) {
          return Responses.error(HttpResponseStatus.CONFLICT, writesRefused);
        }
        return bulk(req.content());
      }
      case "/admin/gc/pause", "/admin/gc/resume" -> {
        require(m, HttpMethod.POST, "POST");
        if (path.endsWith("pause")) {
          gc.pause();
        } else {
          gc.resume();
        }
        return Responses.json(
            HttpResponseStatus.OK, io.docstore.service.metrics.StatsJson.bytes(gc.stats()));
      }
      default -> {
        if (!path.startsWith("/docs/")) {
          return Responses.error(HttpResponseStatus.NOT_FOUND, "no such endpoint");
        }
        long id = DocumentIds.parse(path.substring("/docs/".length()));
        if (writesRefused != null && (m.equals(HttpMethod.PUT) || m.equals(HttpMethod.DELETE))) {
          return Responses.error(HttpResponseStatus.CONFLICT, writesRefused);
        }
        if (m.equals(HttpMethod.PUT)) {
          return put(id, req);
        }
        if (m.equals(HttpMethod.DELETE)) {
          return written(sink.delete(id));
        }
        throw BadRequest.methodNotAllowed("PUT, DELETE");
      }
    }
  }

  /**
   * A put; its expiry, if any, from {@code X-TTL} (seconds) or {@code X-Expires-At} (epoch
   * milliseconds).
   */
  private FullHttpResponse put(long id, FullHttpRequest req) throws BadRequest, IOException {
    byte[] body = ByteBufUtil.getBytes(req.content());
    long discovered;
    long expires;
    try {
      expires =
          UpdateParser.expiry(
              req.headers().get(TTL_HEADER),
              req.headers().get(EXPIRES_AT_HEADER),
              System.currentTimeMillis());
      discovered = parser.validateDocument(body, 0, body.length);
    } catch (DocumentTooLargeException e) {
      throw new BadRequest(413, e.getMessage());
    } catch (InvalidUpdateException e) {
      throw new BadRequest(e.getMessage());
    }
    return written(sink.apply(List.of(new Update(id, body, discovered, expires))).get(0));
  }

  private static FullHttpResponse written(Written w) {
    return Responses.json(
        HttpResponseStatus.OK, "{\"id\":" + w.id() + ",\"seq\":" + w.sequence() + "}");
  }

  /**
   * Applies the valid lines as one batch (one durability wait) and answers NDJSON, one result per
   * non-empty input line: {@code {"line":L,"id":N,"seq":S}} or {@code
   * {"line":L,"status":400,"error":"..."}}.
   */
  private FullHttpResponse bulk(ByteBuf content) throws BadRequest, IOException {
    byte[] body = ByteBufUtil.getBytes(content);
    List<Update> updates = new ArrayList<>();
    List<BulkLine> lines = new ArrayList<>();
    int lineNo = 0;
    int start = 0;
    while (start < body.length) {
      int end = start;
      while (end < body.length && body[end] != '\n') {
        end++;
      }
      lineNo++;
      int len = end - start;
      if (len > 0 && body[end - 1] == '\r') {
        len--;
      }
      if (!blank(body, start, len)) {
        if (lines.size() >= bulkMaxLines) {
          throw new BadRequest(413, "bulk request has more than " + bulkMaxLines + " lines");
        }
        try {
          Update u = parser.parseLine(body, start, len);
          GroupKeys.checkDocumentId(u.id(), groups);
          updates.add(u);
          lines.add(new ValidLine(lineNo, updates.size() - 1));
        } catch (InvalidUpdateException | IllegalArgumentException e) {
          lines.add(new RefusedLine(lineNo, e.getMessage()));
        }
      }
      start = end + 1;
    }
    List<Written> written = sink.apply(updates);
    ByteArrayOutputStream out = new ByteArrayOutputStream(64 * lines.size());
    for (BulkLine l : lines) {
      out.writeBytes(l.answer(written).getBytes(StandardCharsets.UTF_8));
    }
    return Responses.bytes(HttpResponseStatus.OK, out.toByteArray(), "application/x-ndjson");
  }

  /** A non-empty line of a bulk request, answered by one NDJSON line. */
  private sealed interface BulkLine permits ValidLine, RefusedLine {

    /** The answer line, given the batch's acknowledgements (in the order of its updates). */
    String answer(List<Written> written);
  }

  /** A line whose update went into the batch as its {@code update}-th element. */
  private record ValidLine(int line, int update) implements BulkLine {

    @Override
    public String answer(List<Written> written) {
      Written w = written.get(update);
      return "{\"line\":" + line + ",\"id\":" + w.id() + ",\"seq\":" + w.sequence() + "}\n";
    }
  }

  /** A line the parser refused, with its reason. */
  private record RefusedLine(int line, String reason) implements BulkLine {

    @Override
    public String answer(List<Written> written) {
      return "{\"line\":"
          + line
          + ",\"status\":400,\"error\":\""
          + Responses.escape(reason)
          + "\"}\n";
    }
  }

  private static boolean blank(byte[] b, int off, int len) {
    for (int i = off; i < off + len; i++) {
      if (b[i] != ' ' && b[i] != '\t') {
        return false;
      }
    }
    return true;
  }

  private static void require(HttpMethod m, HttpMethod want, String allow) throws BadRequest {
    if (!m.equals(want)) {
      throw BadRequest.methodNotAllowed(allow);
    }
  }
}
