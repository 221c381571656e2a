package io.docstore.service.http;

import io.docstore.client.Document;
import io.docstore.io.CorruptionException;
import io.docstore.io.cache.SlotCache;
import io.docstore.service.DocumentSource;
import io.docstore.service.cluster.ClusterView;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The read port: {@code GET|HEAD /docs/{id}} (ETag = sequence number, If-None-Match → 304) and
 * {@code GET /docs?ids=1,2,3} (at most a configured number of distinct IDs); with {@code ?group=G}
 * either serves field group G's projection instead of the document (ETag = sequence and group);
 * {@code GET /log-position/{partition}} says how far reads here see a partition of the update log
 * (read-your-writes on a shard fed by Kafka); {@code GET /cluster} serves the shard map. It has no
 * write paths at all: any other method is 405. Thread-safe (stateless apart from the source).
 */
public final class ReadRoutes implements Routes {

  private static final Logger log = LoggerFactory.getLogger(ReadRoutes.class);
  private static final byte[] FOUND_OPEN = "{\"found\":{".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] MISSING_OPEN = "},\"missing\":[".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] DAMAGED_OPEN = ",\"damaged\":[".getBytes(StandardCharsets.US_ASCII);

  /** The default of {@code http.max-response-bytes}. */
  public static final long DEFAULT_MAX_RESPONSE_BYTES = 16 << 20;

  /** Room for a typical ~1 KB document; the buffer grows (within the pool) for larger ones. */
  private static final int INITIAL_BODY_BYTES = 2048;

  private final DocumentSource source;
  private final int maxIds;
  private final long maxResponseBytes;
  private final String whereUpdatesGo;
  private final ClusterView cluster;

  private final ClusterRoutes clusterRoutes;

  public ReadRoutes(DocumentSource source, int maxIds) {
    this(source, maxIds, DEFAULT_MAX_RESPONSE_BYTES);
  }

  /**
   * @param maxResponseBytes the largest multi-get answer: one that would grow past it is refused
   *     with 400 (ask for fewer IDs), so no request makes the server hold more
   */
  public ReadRoutes(DocumentSource source, int maxIds, long maxResponseBytes) {
    this(source, maxIds, maxResponseBytes, "updates go to the admin port");
  }

  /**
   * @param whereUpdatesGo what a refused update is told: on a replica, that updates go to the
   *     primary
   */
  public ReadRoutes(
      DocumentSource source, int maxIds, long maxResponseBytes, String whereUpdatesGo) {
    this(source, maxIds, maxResponseBytes, whereUpdatesGo, null);
  }

  /**
   * @param cluster the shard map served as {@code GET /cluster} (docs/formats/shard-map.md) and the
   *     documents this node does not serve (421), or null for none (404)
   */
  public ReadRoutes(
      DocumentSource source,
      int maxIds,
      long maxResponseBytes,
      String whereUpdatesGo,
      ClusterView cluster) {
    this.source = source;
    this.maxIds = maxIds;
    this.maxResponseBytes = maxResponseBytes;
    this.whereUpdatesGo = whereUpdatesGo;
    this.cluster = cluster;
    this.clusterRoutes = new ClusterRoutes(cluster, false);
  }

  @Override
  public FullHttpResponse handle(FullHttpRequest req) {
    try {
      return route(req);
    } catch (BadRequest e) {
      return Responses.error(HttpResponseStatus.valueOf(e.status()), e.getMessage());
    } catch (IllegalArgumentException e) {
      // The source refused what was asked (an ID it cannot hold, a group it does not have).
      return Responses.error(HttpResponseStatus.BAD_REQUEST, e.getMessage());
    } catch (IOException e) {
      return Responses.readFailed(e);
    }
  }

  /**
   * {@code GET|HEAD /docs/{id}} of a document in the in-process cache, or of any document while the
   * source says its reads find their pages in memory ({@link DocumentSource#readsInMemory}): a read
   * of a few microseconds costs less than the two thread hand-offs to a worker and back. Null for
   * anything else (other paths, query strings, invalid IDs, misses while reads may wait for the
   * disk, a read that failed), which {@link #handle} then answers on a worker.
   */
  @Override
  public FullHttpResponse handleWithoutBlocking(FullHttpRequest req, ByteBufAllocator alloc) {
    String uri = req.uri();
    HttpMethod m = req.method();
    if (!uri.startsWith("/docs/")
        || uri.indexOf('?') >= 0
        || !(m.equals(HttpMethod.GET) || m.equals(HttpMethod.HEAD))) {
      return null;
    }
    long id;
    try {
      id = DocumentIds.parse(uri.substring("/docs/".length()));
    } catch (BadRequest e) {
      return null;
    }
    if (cluster != null && cluster.misrouted(id) != null) {
      return null; // answered 421 by the worker
    }
    ByteBuf body = alloc.directBuffer(INITIAL_BODY_BYTES);
    long seq = source.copyIfCached(id, body);
    if (seq >= 0) {
      return found(req, seq, body);
    }
    if (!source.readsInMemory()) {
      body.release();
      return null;
    }
    try {
      seq = source.copy(id, body);
    } catch (IOException | RuntimeException | InternalError e) {
      // InternalError: a fault in a mapped read (a file cut short under the mapping). The worker
      // reads it again and answers the error (and logs it); the network thread only passes it on.
      body.release();
      return null;
    }
    if (seq < 0) {
      body.release();
      return Responses.error(HttpResponseStatus.NOT_FOUND, "document " + id + " not found");
    }
    return found(req, seq, body);
  }

  private FullHttpResponse route(FullHttpRequest req) throws BadRequest, IOException {
    QueryStringDecoder qs;
    try {
      qs = new QueryStringDecoder(req.uri());
    } catch (IllegalArgumentException e) {
      throw new BadRequest("malformed URI: " + e.getMessage());
    }
    String path = qs.rawPath();
    if (path.equals("/cluster")) {
      return clusterRoutes.handle(req);
    }
    if (path.startsWith(LOG_POSITION)) {
      return logPosition(req, path.substring(LOG_POSITION.length()));
    }
    boolean single = path.startsWith("/docs/");
    if (!single && !path.equals("/docs")) {
      return Responses.error(
          HttpResponseStatus.NOT_FOUND,
          "no such endpoint; try GET /docs/{id} or GET /docs?ids=1,2");
    }
    HttpMethod m = req.method();
    if (!m.equals(HttpMethod.GET) && !m.equals(HttpMethod.HEAD)) {
      FullHttpResponse r =
          Responses.error(
              HttpResponseStatus.METHOD_NOT_ALLOWED,
              "the read port serves GET and HEAD only; " + whereUpdatesGo);
      r.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD");
      return r;
    }
    String group = group(qs);
    if (single) {
      long id = DocumentIds.parse(path.substring("/docs/".length()));
      checkServed(id);
      return group == null ? one(req, id) : one(req, id, group);
    }
    return many(qs, group);
  }

  /**
   * 421 Misdirected Request for a document of a partition this node's shard does not serve (its
   * client's shard map is out of date).
   */
  private void checkServed(long id) throws BadRequest {
    String why = cluster == null ? null : cluster.misrouted(id);
    if (why != null) {
      throw new BadRequest(421, why);
    }
  }

  private static final String LOG_POSITION = "/log-position/";

  /**
   * {@code GET /log-position/{partition}}: {@code {"partition":P,"next":O}}, where {@code O} is the
   * offset of the first message of partition P of the update log whose write a read here may not
   * see yet (-1: nothing of it is visible here); see {@link DocumentSource#visibleLogPosition}. 404
   * on a node not fed by a log, 400 for a partition that is not a number from 0 to 2^31 - 1 or that
   * the source cannot follow.
   */
  private FullHttpResponse logPosition(FullHttpRequest req, String text)
      throws BadRequest, IOException {
    if (!req.method().equals(HttpMethod.GET)) {
      FullHttpResponse r =
          Responses.error(
              HttpResponseStatus.METHOD_NOT_ALLOWED, "GET /log-position/{partition} only");
      r.headers().set(HttpHeaderNames.ALLOW, "GET");
      return r;
    }
    int partition = partition(text);
    if (!source.fedByLog()) {
      return Responses.error(
          HttpResponseStatus.NOT_FOUND,
          "this node is not fed by an update log: docstore.updates.kafka is not set here, and it"
              + " holds no position in one");
    }
    long next = source.visibleLogPosition(partition); // IllegalArgumentException: 400
    return Responses.json(
        HttpResponseStatus.OK, "{\"partition\":" + partition + ",\"next\":" + next + "}");
  }

  /** A partition number in a URL: 1 to 10 ASCII digits, at most 2^31 - 1. */
  private static int partition(String text) throws BadRequest {
    boolean digits = !text.isEmpty() && text.length() <= 10;
    for (int i = 0; digits && i < text.length(); i++) {
      digits = text.charAt(i) >= '0' && text.charAt(i) <= '9';
    }
    if (!digits || Long.parseLong(text) > Integer.MAX_VALUE) {
      throw new BadRequest(
          "malformed partition '"
              + (text.length() > 40 ? text.substring(0, 40) + "..." : text)
              + "': expected an integer from 0 to "
              + Integer.MAX_VALUE);
    }
    return Integer.parseInt(text);
  }

  /** {@code GET /cluster}: the shard map, as text. */
  /**
   * The {@code group} parameter, checked against the source's field groups; null when absent.
   *
   * @throws BadRequest for an unknown group, naming the known ones
   */
  private String group(QueryStringDecoder qs) throws BadRequest {
    List<String> values = qs.parameters().get("group");
    if (values == null) {
      return null;
    }
    String group = values.get(values.size() - 1);
    if (!source.groups().has(group)) {
      throw new BadRequest(
          source.groups().configured()
              ? "unknown group '"
                  + group
                  + "'; the groups are: "
                  + String.join(", ", source.groups().names())
              : "unknown group '" + group + "': no field groups are configured here");
    }
    return group;
  }

  /** {@code GET|HEAD /docs/{id}?group=G}: the group's projection; ETag = sequence and group. */
  private FullHttpResponse one(FullHttpRequest req, long id, String group) throws IOException {
    Document d = source.getAll(new long[] {id}, group)[0];
    if (d == null) {
      return Responses.error(
          HttpResponseStatus.NOT_FOUND, "document " + id + " not found (group " + group + ")");
    }
    return found(req, "\"" + d.sequence() + "-" + group + "\"", Unpooled.wrappedBuffer(d.body()));
  }

  private FullHttpResponse one(FullHttpRequest req, long id) throws IOException {
    Document d = source.get(id);
    if (d == null) {
      return Responses.error(HttpResponseStatus.NOT_FOUND, "document " + id + " not found");
    }
    return found(req, d.sequence(), Unpooled.wrappedBuffer(d.body()));
  }

  /**
   * 200 with {@code body} (released or handed to the response) and ETag = sequence, or 304 when
   * If-None-Match names that ETag.
   */
  private static FullHttpResponse found(FullHttpRequest req, long sequence, ByteBuf body) {
    return found(req, "\"" + sequence + "\"", body);
  }

  private static FullHttpResponse found(FullHttpRequest req, String etag, ByteBuf body) {
    String inm = req.headers().get(HttpHeaderNames.IF_NONE_MATCH);
    if (inm != null && matches(inm, etag)) {
      body.release();
      FullHttpResponse r =
          Responses.bytes(HttpResponseStatus.NOT_MODIFIED, new byte[0], "application/json");
      r.headers().remove(HttpHeaderNames.CONTENT_LENGTH);
      r.headers().set(HttpHeaderNames.ETAG, etag);
      return r;
    }
    FullHttpResponse r = Responses.json(HttpResponseStatus.OK, body);
    r.headers().set(HttpHeaderNames.ETAG, etag);
    return r;
  }

  private static boolean matches(String ifNoneMatch, String etag) {
    for (String t : ifNoneMatch.split(",")) {
      String s = t.trim();
      if (s.startsWith("W/")) {
        s = s.substring(2);
      }
      if (s.equals("*") || s.equals(etag)) {
        return true;
      }
    }
    return false;
  }

  /**
   * {@code GET /docs?ids=...}: the distinct IDs in request order, answered {@code
   * {"found":{"id":doc,...},"missing":[id,...]}}. With an in-process cache each body is copied from
   * the cache, or from the queue's buffer on a miss, into one pooled scratch buffer and from there
   * into the response: no {@code byte[]} or object per document on the heap. With a remote cache
   * one batched lookup ({@link DocumentSource#getAll}) keeps it to one network round trip.
   */
  private FullHttpResponse many(QueryStringDecoder qs, String group)
      throws BadRequest, IOException {
    List<String> params = qs.parameters().get("ids");
    if (params == null || params.isEmpty()) {
      throw new BadRequest("missing ids parameter: GET /docs?ids=1,2,3");
    }
    long[] ids = distinctIds(params);
    for (long id : ids) {
      checkServed(id);
    }
    // Not pooled: an answer of up to http.max-response-bytes built on a worker thread and freed on
    // the network thread would leave the pooling allocator holding chunks of that size per thread
    // (measured: direct memory grew by up to 390 MiB under slow readers); freed at once instead.
    ByteBuf out =
        UnpooledByteBufAllocator.DEFAULT.directBuffer(
            Math.min(1 << 20, ids.length * INITIAL_BODY_BYTES + 64));
    DocumentSource.Projections projections = null;
    try {
      out.writeBytes(FOUND_OPEN);
      long[] missing = null;
      int missed = 0;
      long[] damaged = null;
      int broken = 0;
      Document[] docs = null;
      if (!source.cachesInProcess()) {
        try {
          docs = group == null ? source.getAll(ids) : source.getAll(ids, group);
        } catch (CorruptionException e) {
          docs = null; // one of them is damaged: read them one by one below, naming it
        }
      }
      for (int i = 0; i < ids.length; i++) {
        int mark = out.writerIndex();
        if (mark > FOUND_OPEN.length) {
          out.writeByte(',');
        }
        out.writeByte('"');
        writeDecimal(out, ids[i]);
        out.writeByte('"').writeByte(':');
        boolean found;
        if (docs == null) {
          try {
            if (group != null) {
              if (projections == null) {
                projections = source.projections(group);
              }
              found = projections.copy(ids[i], out) >= 0;
            } else {
              found = source.copyIfCached(ids[i], out) >= 0 || source.copy(ids[i], out) >= 0;
            }
          } catch (CorruptionException e) {
            // The others are still answered; this one is named, and the log says where it lies.
            log.error("corrupt document data: {}", e.getMessage());
            out.writerIndex(mark);
            if (damaged == null) {
              damaged = new long[ids.length - i];
            }
            damaged[broken++] = ids[i];
            continue;
          }
        } else {
          found = docs[i] != null;
          if (found) {
            out.writeBytes(docs[i].body());
          }
        }
        if (!found) {
          out.writerIndex(mark);
          if (missing == null) {
            missing = new long[ids.length - i];
          }
          missing[missed++] = ids[i];
        } else if (out.writerIndex() > maxResponseBytes) {
          throw new BadRequest(
              "the documents asked for add up to more than "
                  + maxResponseBytes
                  + " bytes (http.max-response-bytes): ask for fewer IDs per request");
        }
      }
      out.writeBytes(MISSING_OPEN);
      for (int i = 0; i < missed; i++) {
        if (i > 0) {
          out.writeByte(',');
        }
        writeDecimal(out, missing[i]);
      }
      out.writeByte(']');
      if (broken > 0) {
        out.writeBytes(DAMAGED_OPEN);
        for (int i = 0; i < broken; i++) {
          if (i > 0) {
            out.writeByte(',');
          }
          writeDecimal(out, damaged[i]);
        }
        out.writeByte(']');
      }
      out.writeByte('}');
      FullHttpResponse r = Responses.json(HttpResponseStatus.OK, out);
      out = null;
      return r;
    } finally {
      if (out != null) {
        out.release();
      }
      if (projections != null) {
        projections.close();
      }
    }
  }

  /**
   * The IDs of the {@code ids} parameters, each once, in the order of first mention. Repeats are
   * found with an open-addressing set of the IDs seen (no sort, no boxing).
   */
  private long[] distinctIds(List<String> params) throws BadRequest {
    long[] out = new long[16];
    long[] seen = new long[64]; // ID + 1 (0 = empty), at most half full
    int n = 0;
    for (String p : params) {
      int from = 0;
      while (true) {
        int comma = p.indexOf(',', from);
        int to = comma < 0 ? p.length() : comma;
        long id = DocumentIds.parse(p.subSequence(from, to));
        int mask = seen.length - 1;
        int slot = (int) (SlotCache.mix(id) & mask);
        while (seen[slot] != 0 && seen[slot] != id + 1) {
          slot = (slot + 1) & mask;
        }
        if (seen[slot] == 0) {
          if (n == maxIds) {
            throw new BadRequest("too many IDs: at most " + maxIds + " distinct IDs per request");
          }
          seen[slot] = id + 1;
          if (n == out.length) {
            out = Arrays.copyOf(out, n * 2);
          }
          out[n++] = id;
          if (2 * n > seen.length) {
            seen = rehash(out, n);
          }
        }
        if (comma < 0) {
          break;
        }
        from = comma + 1;
      }
    }
    return n == out.length ? out : Arrays.copyOf(out, n);
  }

  /** A set as {@link #distinctIds} keeps it, of the {@code n} distinct IDs in {@code ids}. */
  private static long[] rehash(long[] ids, int n) {
    long[] seen = new long[Integer.highestOneBit(n) * 4];
    int mask = seen.length - 1;
    for (int i = 0; i < n; i++) {
      int slot = (int) (SlotCache.mix(ids[i]) & mask);
      while (seen[slot] != 0) {
        slot = (slot + 1) & mask;
      }
      seen[slot] = ids[i] + 1;
    }
    return seen;
  }

  /** Writes {@code v} (non-negative) in decimal ASCII without a string. */
  private static void writeDecimal(ByteBuf out, long v) {
    if (v < 10) {
      out.writeByte('0' + (int) v);
      return;
    }
    int digits = 1;
    for (long t = v / 10; t > 0; t /= 10) {
      digits++;
    }
    int at = out.writerIndex();
    out.ensureWritable(digits);
    for (int i = digits - 1; i >= 0; i--) {
      out.setByte(at + i, '0' + (int) (v % 10));
      v /= 10;
    }
    out.writerIndex(at + digits);
  }
}
