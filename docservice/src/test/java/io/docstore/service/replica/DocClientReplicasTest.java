package io.docstore.service.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.client.DocClient;
import io.docstore.client.DocClientException;
import io.docstore.client.Document;
import io.docstore.service.Service;
import io.docstore.service.config.DocstoreConfig;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link DocClient} over real servers: a primary {@link Service} and two {@link ReplicaServer}s fed
 * by a real rsync daemon (reads spread over all three, read-your-writes with {@code getAtLeast}),
 * and three primaries holding different versions of the same document ({@code getAtLeast} asks
 * every server once per round). Requests per server are counted by each server's own {@code
 * docstore_rpc_requests_total} on its {@code /metrics}.
 */
class DocClientReplicasTest {

  private static final Pattern RPC_REQUESTS =
      Pattern.compile("(?m)^docstore_rpc_requests_total(?:\\{[^}]*})? (\\S+)$");

  @TempDir Path tmp;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private static Map<String, Object> config(Path dir) {
    Map<String, Object> o = ReplicaServerTest.config(dir);
    o.put("docstore.rpc.enabled", true);
    return o;
  }

  private HttpResponse<String> send(String method, String url, String body) throws Exception {
    return ReplicaServerTest.send(http, method, url, body);
  }

  /** PUT over the admin API; returns the acknowledged sequence. */
  private long put(Service primary, long id, String doc) throws Exception {
    HttpResponse<String> r = send("PUT", primary.adminUrl() + "/docs/" + id, doc);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    Matcher m = Pattern.compile("\"seq\":(\\d+)").matcher(r.body());
    assertThat(m.find()).as(r.body()).isTrue();
    return Long.parseLong(m.group(1));
  }

  private long rpcRequests(String adminUrl) throws Exception {
    String metrics = send("GET", adminUrl + "/metrics", null).body();
    Matcher m = RPC_REQUESTS.matcher(metrics);
    assertThat(m.find()).as("docstore_rpc_requests_total on " + adminUrl).isTrue();
    return (long) Double.parseDouble(m.group(1));
  }

  private static InetSocketAddress local(int port) {
    return new InetSocketAddress("127.0.0.1", port);
  }

  private static void awaitApplied(ReplicaServer r, long seq) throws InterruptedException {
    assertThat(r.node().awaitSequence(seq, 30_000))
        .as("replica at %d: %s", seq, r.node().stats())
        .isTrue();
  }

  @Test
  void readsSpreadOverThePrimaryAndTwoReplicasAndGetAtLeastReadsYourWrites() throws Exception {
    try (Service primary =
            Service.start(DocstoreConfig.load(null, config(tmp.resolve("primary"))));
        RsyncDaemon daemon =
            RsyncDaemon.start(tmp.resolve("primary/queue"), tmp.resolve("rsyncd"))) {
      ReplicaConfig rc =
          new ReplicaConfig(
              daemon.url(),
              Duration.ofMillis(50),
              Duration.ofSeconds(5),
              Duration.ofMillis(200),
              Duration.ofSeconds(10),
              "rsync");
      try (ReplicaServer a =
              ReplicaServer.start(DocstoreConfig.load(null, config(tmp.resolve("a"))), rc);
          ReplicaServer b =
              ReplicaServer.start(DocstoreConfig.load(null, config(tmp.resolve("b"))), rc)) {
        long last = 0;
        for (int id = 0; id < 50; id++) {
          last = put(primary, id, "{\"n\":" + id + "}");
        }
        awaitApplied(a, last);
        awaitApplied(b, last);
        List<String> admins =
            List.of(
                primary.adminUrl(),
                "http://127.0.0.1:" + a.adminPort(),
                "http://127.0.0.1:" + b.adminPort());
        long[] before = new long[3];
        for (int i = 0; i < 3; i++) {
          before[i] = rpcRequests(admins.get(i));
        }
        int threads = 8;
        int perThread = 200;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (DocClient client =
            DocClient.builder()
                .servers(List.of(local(primary.rpcPort()), local(a.rpcPort()), local(b.rpcPort())))
                .slotsPerServer(4)
                .build()) {
          for (InetSocketAddress s :
              List.of(local(primary.rpcPort()), local(a.rpcPort()), local(b.rpcPort()))) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!client.isConnected(s)) {
              assertThat(System.nanoTime()).as("connected to " + s).isLessThan(deadline);
              Thread.sleep(10);
            }
          }
          List<Future<?>> readers = new ArrayList<>();
          for (int t = 0; t < threads; t++) {
            int seed = t;
            readers.add(
                pool.submit(
                    () -> {
                      for (int i = 0; i < perThread; i++) {
                        long id = (seed * 31L + i) % 50;
                        Document d = client.get(id);
                        assertThat(d).isNotNull();
                        assertThat(new String(d.body(), StandardCharsets.UTF_8))
                            .isEqualTo("{\"n\":" + id + "}");
                      }
                      return null;
                    }));
          }
          for (Future<?> f : readers) {
            f.get(60, TimeUnit.SECONDS);
          }
          long[] served = new long[3];
          long total = 0;
          for (int i = 0; i < 3; i++) {
            served[i] = rpcRequests(admins.get(i)) - before[i];
            total += served[i];
          }
          System.out.printf(
              "DocClient over primary + 2 replicas, %d threads: requests served %d / %d / %d%n",
              threads, served[0], served[1], served[2]);
          assertThat(total).as("every read was one request").isEqualTo((long) threads * perThread);
          for (int i = 0; i < 3; i++) {
            assertThat(served[i])
                .as("requests served by %s (of %d)", admins.get(i), total)
                .isGreaterThan(total / 20);
          }

          // Read-your-writes: a new version is read at once, from whichever server has it.
          for (int round = 0; round < 5; round++) {
            long seq = put(primary, 7, "{\"n\":7,\"round\":" + round + "}");
            Document d = client.getAtLeast(7, seq);
            assertThat(d.sequence()).isGreaterThanOrEqualTo(seq);
            assertThat(new String(d.body(), StandardCharsets.UTF_8))
                .isEqualTo("{\"n\":7,\"round\":" + round + "}");
          }
          assertThat(client.getAtLeast(1_000_000, 1)).as("absent everywhere").isNull();
        } finally {
          pool.shutdownNow();
        }
      }
    }
  }

  @Test
  void getAtLeastAsksEveryServerOnceARoundAndAnswersAbsentOrTimesOut() throws Exception {
    // Three primaries holding different versions of document 7: sequence 1 on two, 4 on the third.
    List<Service> services = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        services.add(Service.start(DocstoreConfig.load(null, config(tmp.resolve("p" + i)))));
      }
      put(services.get(0), 7, "{\"v\":\"old\"}");
      put(services.get(1), 7, "{\"v\":\"old\"}");
      long newest = 0;
      for (int i = 0; i < 4; i++) {
        newest = put(services.get(2), 7, "{\"v\":\"new\"}");
      }
      assertThat(newest).isEqualTo(4);
      List<InetSocketAddress> addrs = new ArrayList<>();
      for (Service s : services) {
        addrs.add(local(s.rpcPort()));
      }
      for (int c = 0; c < 3; c++) { // new clients: each orders the servers differently
        try (DocClient client =
            DocClient.builder().servers(addrs).requestTimeout(Duration.ofMillis(700)).build()) {
          for (InetSocketAddress s : addrs) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!client.isConnected(s)) {
              assertThat(System.nanoTime()).as("connected to " + s).isLessThan(deadline);
              Thread.sleep(10);
            }
          }
          long asked = totalRequests(services);
          Document d = client.getAtLeast(7, 4);
          assertThat(d.sequence()).isEqualTo(4);
          assertThat(new String(d.body(), StandardCharsets.UTF_8)).isEqualTo("{\"v\":\"new\"}");
          assertThat(totalRequests(services) - asked)
              .as("one round: each server at most once")
              .isBetween(1L, 3L);

          assertThat(client.getAtLeast(7, 1).sequence()).isGreaterThanOrEqualTo(1);

          asked = totalRequests(services);
          assertThat(client.getAtLeast(8, 1)).as("absent on every server").isNull();
          assertThat(totalRequests(services) - asked)
              .as("absent: asked every server once")
              .isEqualTo(3L);

          assertThatThrownBy(() -> client.getAtLeast(7, 5))
              .isInstanceOf(DocClientException.class)
              .hasMessageContaining("newest seen: 4");
        }
      }
    } finally {
      for (Service s : services) {
        s.close();
      }
    }
  }

  private long totalRequests(List<Service> services) throws Exception {
    long sum = 0;
    for (Service s : services) {
      sum += rpcRequests(s.adminUrl());
    }
    return sum;
  }
}
