package io.docstore.service.http;

import io.docstore.service.cluster.ClusterView;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * {@code /cluster}: {@code GET} answers the shard map this node follows (docs/formats/shard-map.md;
 * every port that has it), and on an admin port {@code PUT} pushes a new one to the node ({@link
 * ClusterView#push}: checked, written over the node's map file, in force at once), so that a
 * cluster without a shared configuration directory can change its map node by node. Thread-safe.
 */
public final class ClusterRoutes {

  private final ClusterView cluster;
  private final boolean push;

  /**
   * @param cluster the node's view of the map, or null when it has none
   * @param push whether {@code PUT} is taken (admin ports only, behind the admin token)
   */
  public ClusterRoutes(ClusterView cluster, boolean push) {
    this.cluster = cluster;
    this.push = push;
  }

  /** The answer to a request for {@code /cluster}. */
  public FullHttpResponse handle(FullHttpRequest req) {
    HttpMethod m = req.method();
    boolean read = m.equals(HttpMethod.GET) || m.equals(HttpMethod.HEAD);
    if (!read && !(push && m.equals(HttpMethod.PUT))) {
      String allow = push ? "GET, HEAD, PUT" : "GET, HEAD";
      FullHttpResponse r =
          Responses.error(
              HttpResponseStatus.METHOD_NOT_ALLOWED,
              push ? "GET or PUT /cluster" : "GET /cluster only (PUT a map on the admin port)");
      r.headers().set(HttpHeaderNames.ALLOW, allow);
      return r;
    }
    if (cluster == null) {
      return Responses.error(
          HttpResponseStatus.NOT_FOUND,
          "this node has no shard map (docstore.cluster.shard-map is not set)");
    }
    if (!read) {
      String text = new String(ByteBufUtil.getBytes(req.content()), StandardCharsets.UTF_8);
      try {
        cluster.push(text);
      } catch (IllegalArgumentException e) {
        return Responses.error(
            HttpResponseStatus.BAD_REQUEST, "shard map not taken: " + e.getMessage());
      } catch (IOException e) {
        return Responses.error(
            HttpResponseStatus.INTERNAL_SERVER_ERROR,
            "shard map not taken: the node could not write its map file: " + e.getMessage());
      }
    }
    return Responses.bytes(
        HttpResponseStatus.OK,
        cluster.text().getBytes(StandardCharsets.UTF_8),
        "text/plain; charset=utf-8");
  }
}
