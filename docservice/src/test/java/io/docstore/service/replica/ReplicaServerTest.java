package io.docstore.service.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.service.Service;
import io.docstore.service.config.DocstoreConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole path over real sockets: a primary {@link Service} (which publishes the manifest), a
 * real rsync daemon over its queue, and a {@link ReplicaServer} serving the read API, with writes
 * refused on the replica's admin port.
 */
class ReplicaServerTest {

  @TempDir Path tmp;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /**
   * A service or replica on free loopback ports with small segments and a fast manifest (RPC off).
   */
  static Map<String, Object> config(Path dir) {
    Map<String, Object> o = new HashMap<>();
    o.put("docstore.data-dir", dir.toString());
    o.put("docstore.http.read.port", 0);
    o.put("docstore.http.admin.port", 0);
    o.put("docstore.rpc.enabled", false);
    o.put("docstore.rpc.port", 0);
    o.put("docstore.queue.segment-size", "1M");
    o.put("docstore.queue.max-body", "64K");
    o.put("docstore.replication.manifest-interval", "20ms");
    o.put("docstore.shutdown-timeout", "5s");
    return o;
  }

  private HttpResponse<String> send(String method, String url, String body) throws Exception {
    return send(http, method, url, body);
  }

  static HttpResponse<String> send(HttpClient http, String method, String url, String body)
      throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10));
    b.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body));
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> awaitStatus(String url, int status) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      HttpResponse<String> r = send("GET", url, null);
      if (r.statusCode() == status) {
        return r;
      }
      assertThat(System.nanoTime())
          .as("waiting for " + status + " from " + url + ", last " + r.statusCode())
          .isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  /**
   * A replica whose port is taken says which port and which configuration key, as {@code serve}
   * does, and leaves its data directory free for the next start.
   */
  @Test
  void aTakenPortIsNamedWithItsConfigurationKey() throws Exception {
    ReplicaConfig rc = NoPrimary.config();
    try (java.net.ServerSocket taken =
        new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
      for (String key : new String[] {"docstore.http.read.port", "docstore.http.admin.port"}) {
        Map<String, Object> c = config(tmp.resolve("replica"));
        c.put(key, taken.getLocalPort());
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> ReplicaServer.start(DocstoreConfig.load(null, c), rc).close())
            .isInstanceOf(io.docstore.service.config.ConfigError.class)
            .hasMessageContaining(key)
            .hasMessageContaining("127.0.0.1:" + taken.getLocalPort())
            .hasMessageContaining("choose another port");
      }
    }
    try (ReplicaServer replica =
        ReplicaServer.start(DocstoreConfig.load(null, config(tmp.resolve("replica"))), rc)) {
      assertThat(replica.readPort()).isPositive();
    }
  }

  /** On close (SIGTERM) a replica says "draining" for its drain period before its ports close. */
  @Test
  void aClosingReplicaDrainsBeforeItsPortsClose() throws Exception {
    Map<String, Object> c = config(tmp.resolve("replica"));
    c.put("docstore.drain-period", "2s");
    ReplicaServer replica = ReplicaServer.start(DocstoreConfig.load(null, c), NoPrimary.config());
    String readyz = "http://127.0.0.1:" + replica.adminPort() + "/readyz";
    String read = "http://127.0.0.1:" + replica.readPort() + "/docs/1";
    assertThat(send("GET", readyz, null).body()).doesNotContain("draining");
    Thread closing =
        new Thread(
            () -> {
              try {
                replica.close();
              } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
    long t0 = System.nanoTime();
    closing.start();
    awaitStatus(readyz, 503); // already 503 (no primary), so look for the drain itself:
    long deadline = t0 + TimeUnit.SECONDS.toNanos(1);
    String body = "";
    while (System.nanoTime() < deadline && !body.contains("draining")) {
      body = send("GET", readyz, null).body();
    }
    assertThat(body).contains("draining");
    assertThat(send("GET", read, null).statusCode())
        .as("the read port still answers")
        .isEqualTo(404);
    closing.join(15_000);
    assertThat(closing.isAlive()).isFalse();
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isGreaterThanOrEqualTo(2000);
  }

  @Test
  void aReplicaServesThePrimarysDocumentsAndRefusesWrites() throws Exception {
    try (Service primary =
            Service.start(DocstoreConfig.load(null, config(tmp.resolve("primary"))));
        RsyncDaemon daemon =
            RsyncDaemon.start(tmp.resolve("primary/queue"), tmp.resolve("rsyncd"));
        ReplicaServer replica =
            ReplicaServer.start(
                DocstoreConfig.load(null, config(tmp.resolve("replica"))),
                new ReplicaConfig(
                    daemon.url(),
                    Duration.ofMillis(50),
                    Duration.ofSeconds(5),
                    Duration.ofMillis(200),
                    Duration.ofSeconds(10),
                    "rsync"))) {
      String doc = "{\"title\":\"replicated\",\"n\":1}";
      assertThat(send("PUT", primary.adminUrl() + "/docs/7", doc).statusCode()).isEqualTo(200);
      assertThat(
              send("PUT", primary.adminUrl() + "/docs/8", "{\"title\":\"to delete\"}").statusCode())
          .isEqualTo(200);
      String replicaRead = "http://127.0.0.1:" + replica.readPort();
      String replicaAdmin = "http://127.0.0.1:" + replica.adminPort();
      assertThat(awaitStatus(replicaRead + "/docs/7", 200).body()).isEqualTo(doc);
      awaitStatus(replicaRead + "/docs/8", 200);
      assertThat(send("DELETE", primary.adminUrl() + "/docs/8", null).statusCode()).isEqualTo(200);
      awaitStatus(replicaRead + "/docs/8", 404);

      assertThat(send("PUT", replicaAdmin + "/docs/9", doc).statusCode()).isEqualTo(403);
      assertThat(send("DELETE", replicaAdmin + "/docs/7", null).statusCode()).isEqualTo(403);
      assertThat(send("POST", replicaAdmin + "/docs/_bulk", "{\"id\":1,\"doc\":{}}\n").statusCode())
          .isEqualTo(403);
      HttpResponse<String> refused = send("PUT", replicaRead + "/docs/9", doc);
      assertThat(refused.statusCode()).isEqualTo(405);
      assertThat(refused.body())
          .as("sends updates where they are taken")
          .contains("primary's admin port");
      assertThat(send("GET", replicaRead + "/docs/9", null).statusCode()).isEqualTo(404);
      HttpResponse<String> stats = send("GET", replicaAdmin + "/stats", null);
      assertThat(stats.statusCode()).isEqualTo(200);
      assertThat(stats.body()).contains("\"role\"").contains("\"appliedSequence\"");
      assertThat(send("GET", replicaAdmin + "/metrics", null).body())
          .contains("docstore_replica_record_lag_seconds")
          .contains("docstore_replica_lag_seconds");
      assertThat(send("GET", replicaAdmin + "/readyz", null).statusCode()).isEqualTo(200);
    }
  }
}
