package io.docstore.service.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.client.DocClient;
import io.docstore.client.DocClientException;
import io.docstore.client.DocClientException.Reason;
import io.docstore.client.DocProducer;
import io.docstore.client.Document;
import io.docstore.client.LogPosition;
import io.docstore.client.ShardMap;
import io.docstore.client.ShardedDocClient;
import io.docstore.io.TestSupport;
import io.docstore.kafka.local.KafkaProcess;
import io.docstore.service.Service;
import io.docstore.service.ServiceFixture;
import io.docstore.service.config.DocstoreConfig;
import io.docstore.service.replica.ReplicaConfig;
import io.docstore.service.replica.ReplicaServer;
import io.docstore.service.replica.RsyncDaemon;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Read-your-writes by log position against a real broker (kafka-local): puts, overwrites and
 * deletes produced with {@link DocProducer} are read back with {@code getAtLeast(id, position)}
 * exactly as produced (null for a delete), every time, from a Kafka-mode primary and an rsync
 * replica that lags it, from the replica alone, and through a {@link ShardedDocClient} over two
 * shards; an earlier position reads the newest state. A partition the node never consumed times out
 * naming it. {@code GET /log-position/{p}} answers 200, 400 and 404.
 */
class ReadYourWritesKafkaTest {

  @TempDir static Path brokerDir;
  @TempDir Path dir;

  private static KafkaProcess kafka;

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  static void startBroker() throws Exception {
    kafka = KafkaProcess.start(brokerDir);
  }

  @AfterAll
  static void stopBroker() {
    if (kafka != null) {
      kafka.close();
    }
  }

  /** A shard in Kafka mode on free ports, RPC on, publishing its manifest for replicas. */
  private static DocstoreConfig shard(Path dir, String topic, List<Integer> partitions) {
    Map<String, Object> o = new HashMap<>();
    o.put("docstore.data-dir", dir.toString());
    o.put("docstore.http.read.port", 0);
    o.put("docstore.http.admin.port", 0);
    o.put("docstore.rpc.port", 0);
    o.put("docstore.queue.segment-size", "1M");
    o.put("docstore.queue.max-body", "64K");
    o.put("docstore.replication.manifest-interval", "20ms");
    o.put("docstore.shutdown-timeout", "5s");
    o.put("docstore.updates.kafka.bootstrap-servers", kafka.bootstrap());
    o.put("docstore.updates.kafka.topic", topic);
    o.put("docstore.updates.kafka.partitions", partitions);
    return DocstoreConfig.load(null, o);
  }

  private static DocstoreConfig replica(Path dir) {
    Map<String, Object> o = new HashMap<>();
    o.put("docstore.data-dir", dir.toString());
    o.put("docstore.http.read.port", 0);
    o.put("docstore.http.admin.port", 0);
    o.put("docstore.rpc.port", 0);
    o.put("docstore.shutdown-timeout", "5s");
    return DocstoreConfig.load(null, o);
  }

  private static InetSocketAddress local(int port) {
    return new InetSocketAddress("127.0.0.1", port);
  }

  private static DocClient client(List<InetSocketAddress> servers) throws InterruptedException {
    DocClient c =
        DocClient.builder().servers(servers).requestTimeout(Duration.ofSeconds(20)).build();
    for (InetSocketAddress s : servers) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (!c.isConnected(s)) {
        assertThat(System.nanoTime()).as("connected to %s", s).isLessThan(deadline);
        Thread.sleep(5);
      }
    }
    return c;
  }

  private HttpResponse<String> get(String url) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** One write produced: its document, its new body (null: a delete) and where it landed. */
  private record Write(long id, String body, LogPosition at) {}

  /**
   * Produces one write to each of {@code count} distinct documents of {@code 0..ids-1}: a new
   * version, or a delete (1 in 4); returns them once the broker acknowledged them all.
   */
  private static List<Write> produce(DocProducer producer, Random rnd, int ids, int count)
      throws Exception {
    Map<Long, String> chosen = new LinkedHashMap<>();
    while (chosen.size() < count) {
      long id = rnd.nextInt(ids);
      chosen.put(
          id, rnd.nextInt(4) == 0 ? null : "{\"id\":" + id + ",\"v\":" + rnd.nextLong() + "}");
    }
    List<Long> order = new ArrayList<>(chosen.keySet());
    List<CompletableFuture<LogPosition>> sent = new ArrayList<>();
    for (long id : order) {
      String body = chosen.get(id);
      sent.add(
          body == null
              ? producer.delete(id)
              : producer.put(id, body.getBytes(StandardCharsets.UTF_8)));
    }
    List<Write> out = new ArrayList<>();
    for (int i = 0; i < order.size(); i++) {
      out.add(
          new Write(order.get(i), chosen.get(order.get(i)), sent.get(i).get(30, TimeUnit.SECONDS)));
    }
    return out;
  }

  private static String text(Document d) {
    return d == null ? null : new String(d.body(), StandardCharsets.UTF_8);
  }

  @Test
  void writesAreReadAsProducedFromAPrimaryAndALaggingReplica() throws Exception {
    String topic = "ryw";
    TopicModel.createTopic(kafka.bootstrap(), topic, 2);
    Random rnd = new Random(TestSupport.seed("ReadYourWritesKafkaTest.replica"));
    try (Service primary = Service.start(shard(dir.resolve("primary"), topic, List.of(0, 1)));
        RsyncDaemon daemon =
            RsyncDaemon.start(dir.resolve("primary/queue"), dir.resolve("rsyncd"));
        ReplicaServer replica =
            ReplicaServer.start(
                replica(dir.resolve("replica")),
                new ReplicaConfig(
                    daemon.url(),
                    Duration.ofMillis(250), // pulls every 250 ms: the replica lags
                    Duration.ofSeconds(5),
                    Duration.ofMillis(200),
                    Duration.ofSeconds(30),
                    "rsync"));
        DocProducer producer = DocProducer.create(kafka.bootstrap(), topic);
        DocClient both = client(List.of(local(primary.rpcPort()), local(replica.rpcPort())));
        DocClient replicaOnly = client(List.of(local(replica.rpcPort())))) {
      String replicaRead = "http://127.0.0.1:" + replica.readPort();
      Map<Long, Write> first = new HashMap<>();
      Map<Long, Write> last = new HashMap<>();
      int lagged = 0;
      int reads = 0;
      for (int batch = 0; batch < 8; batch++) {
        List<Write> writes = produce(producer, rnd, 30, 12);
        Write newest = writes.get(writes.size() - 1);
        String seen = get(replicaRead + "/log-position/" + newest.at().partition()).body();
        long replicaNext =
            seen.contains("\"next\"")
                ? Long.parseLong(seen.replaceAll(".*\"next\":(-?\\d+).*", "$1"))
                : -1;
        if (replicaNext <= newest.at().offset()) {
          lagged++;
        }
        for (Write w : writes) {
          assertThat(text(both.getAtLeast(w.id(), w.at())))
              .as("batch %d, document %d at %s, primary and replica", batch, w.id(), w.at())
              .isEqualTo(w.body());
          assertThat(text(replicaOnly.getAtLeast(w.id(), w.at())))
              .as("batch %d, document %d at %s, replica alone", batch, w.id(), w.at())
              .isEqualTo(w.body());
          reads += 2;
          first.putIfAbsent(w.id(), w);
          last.put(w.id(), w);
        }
      }
      assertThat(lagged).as("the replica lagged the producer in some batch").isPositive();
      // An earlier position of a document reads its newest state, never the earlier write's.
      for (Map.Entry<Long, Write> e : first.entrySet()) {
        assertThat(text(both.getAtLeast(e.getKey(), e.getValue().at())))
            .as("document %d at its first write's position", e.getKey())
            .isEqualTo(last.get(e.getKey()).body());
      }
      System.out.printf(
          "read-your-writes by log position: %d reads exact, replica behind in %d of 8 batches%n",
          reads, lagged);

      HttpResponse<String> r = get(replicaRead + "/log-position/1");
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body()).matches("\\{\"partition\":1,\"next\":\\d+}");
    }
  }

  @Test
  void twoShardsAPartitionNeverConsumedAndTheHttpForm() throws Exception {
    String topic = "ryw-shards";
    TopicModel.createTopic(kafka.bootstrap(), topic, 3);
    Random rnd = new Random(TestSupport.seed("ReadYourWritesKafkaTest.shards"));
    try (Service a = Service.start(shard(dir.resolve("a"), topic, List.of(0, 1)));
        Service b = Service.start(shard(dir.resolve("b"), topic, List.of(2)));
        ServiceFixture plain = ServiceFixture.start(dir.resolve("plain"));
        DocProducer producer = DocProducer.create(kafka.bootstrap(), topic)) {
      ShardMap map =
          ShardMap.parse(
              "partitions 3\nshard a 0-1 127.0.0.1:"
                  + a.rpcPort()
                  + "\nshard b 2 127.0.0.1:"
                  + b.rpcPort()
                  + "\n");
      List<Write> writes = new ArrayList<>();
      try (ShardedDocClient sharded =
          ShardedDocClient.open(map, c -> c.requestTimeout(Duration.ofSeconds(20)))) {
        for (int batch = 0; batch < 4; batch++) {
          for (Write w : produce(producer, rnd, 40, 15)) {
            assertThat(text(sharded.getAtLeast(w.id(), w.at())))
                .as("document %d at %s", w.id(), w.at())
                .isEqualTo(w.body());
            writes.add(w);
          }
        }
        Write some = writes.get(0);
        LogPosition elsewhere =
            new LogPosition((some.at().partition() + 1) % 3, some.at().offset());
        assertThatThrownBy(() -> sharded.getAtLeast(some.id(), elsewhere))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("is in partition " + some.at().partition() + " of 3");
      }

      // Shard a never consumed partition 2: a write there is never visible on it.
      Write inTwo = null;
      for (Write w : writes) {
        if (w.at().partition() == 2) {
          inTwo = w;
        }
      }
      assertThat(inTwo).as("some write landed in partition 2").isNotNull();
      Write w2 = inTwo;
      try (DocClient onA =
          DocClient.builder()
              .servers(List.of(local(a.rpcPort())))
              .requestTimeout(Duration.ofMillis(500))
              .build()) {
        assertThatThrownBy(() -> onA.getAtLeast(w2.id(), w2.at()))
            .isInstanceOf(DocClientException.class)
            .satisfies(e -> assertThat(((DocClientException) e).reason()).isEqualTo(Reason.TIMEOUT))
            .hasMessageContaining("no server has applied partition 2 of the update log past offset")
            .hasMessageContaining("no server holds anything of that partition");
      }

      // The HTTP form, on the read port.
      HttpResponse<String> two = get(a.readUrl() + "/log-position/2");
      assertThat(two.statusCode()).isEqualTo(200);
      assertThat(two.body()).isEqualTo("{\"partition\":2,\"next\":-1}");
      long end0 = TopicModel.endOffsets(kafka.bootstrap(), topic, 3).get(0);
      HttpResponse<String> zero = get(a.readUrl() + "/log-position/0");
      assertThat(zero.statusCode()).isEqualTo(200);
      assertThat(zero.body()).isEqualTo("{\"partition\":0,\"next\":" + end0 + "}");
      for (String bad : List.of("x", "-1", "2147483648", "70000", "")) {
        HttpResponse<String> r = get(a.readUrl() + "/log-position/" + bad);
        assertThat(r.statusCode()).as("partition '%s'", bad).isEqualTo(400);
        assertThat(r.body()).as("partition '%s'", bad).contains("\"error\"");
      }
      HttpResponse<String> notFed = plain.get("/log-position/0");
      assertThat(notFed.statusCode()).isEqualTo(404);
      assertThat(notFed.body()).contains("not fed by an update log");
    }
  }
}
