package io.docstore.service.replica;

import io.docstore.service.DocumentSource;
import io.docstore.service.http.AdminPage;
import io.docstore.service.http.AdminToken;
import io.docstore.service.http.BadRequest;
import io.docstore.service.http.HealthRoutes;
import io.docstore.service.http.Responses;
import io.docstore.service.http.Routes;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.function.Supplier;

/**
 * A replica's admin port: the ops endpoints ({@link HealthRoutes}: {@code /healthz}, {@code
 * /readyz}, {@code /stats}, {@code /metrics}) and the admin page ({@link AdminPage}: {@code /ui},
 * {@code /lookup/{id}}), as on a primary. Every write path of the primary's admin API ({@code PUT},
 * {@code DELETE}, {@code POST}) answers 403: a replica takes its data only from the primary. {@code
 * /cluster} serves the shard map it follows and takes a pushed one ({@code PUT}). Stateless;
 * thread-safe.
 */
final class ReplicaAdminRoutes implements Routes {

  private final HealthRoutes health;
  private final AdminToken token;
  private final AdminPage page;
  private final io.docstore.service.http.ClusterRoutes cluster;

  /**
   * @param source where the admin page's lookups read documents (this replica's)
   * @param stats the {@code /stats} document
   * @param notReady null while {@code /readyz} answers 200, else its 503 status ({@link
   *     ReplicaNode#notReady})
   * @param token {@code http.admin.token}: every request must carry it, as on a primary (empty:
   *     none)
   * @param cluster the node's shard map, served and pushed at {@code /cluster} (a replica follows
   *     the map too); null when it has none
   */
  ReplicaAdminRoutes(
      DocumentSource source,
      Supplier<Object> stats,
      Supplier<String> notReady,
      PrometheusMeterRegistry registry,
      String token,
      io.docstore.service.cluster.ClusterView cluster) {
    this.health = new HealthRoutes(stats, notReady, registry);
    this.cluster = new io.docstore.service.http.ClusterRoutes(cluster, true);
    this.token = new AdminToken(token);
    this.page = new AdminPage(source);
  }

  @Override
  public FullHttpResponse handle(FullHttpRequest req) throws Exception {
    FullHttpResponse refused = token.refuse(req);
    if (refused != null) {
      return refused;
    }
    HttpMethod m = req.method();
    String path = req.uri().split("\\?", 2)[0];
    if (path.equals("/cluster")) {
      return cluster.handle(req);
    }
    if (!m.equals(HttpMethod.GET) && !m.equals(HttpMethod.HEAD)) {
      return readOnly();
    }
    FullHttpResponse ops = health.handle(path, m);
    if (ops != null) {
      return ops;
    }
    try {
      FullHttpResponse ui = page.handle(path, m);
      if (ui != null) {
        return ui;
      }
    } catch (BadRequest e) {
      return Responses.error(HttpResponseStatus.valueOf(e.status()), e.getMessage());
    }
    return path.startsWith("/docs")
        ? Responses.error(
            HttpResponseStatus.NOT_FOUND,
            "documents are read on this replica's read port; updates go to the primary's admin port")
        : Responses.error(
            HttpResponseStatus.NOT_FOUND,
            "no such endpoint; try /ui, /stats, /metrics, /healthz, /readyz");
  }

  private static FullHttpResponse readOnly() {
    return Responses.error(
        HttpResponseStatus.FORBIDDEN,
        "this is a read replica: send writes to the primary's admin port");
  }
}
