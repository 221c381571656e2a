package io.docstore.service.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.docstore.client.DocProducer;
import io.docstore.client.Document;
import io.docstore.client.KafkaKeys;
import io.docstore.client.ShardedDocClient;
import io.docstore.io.TestSupport;
import io.docstore.kafka.local.KafkaProcess;
import io.docstore.service.ServiceFixture;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A partition moves from shard a to shard b through the shard map alone, under read load: b builds
 * it from the topic ({@code +1}), the map then gives it to b, a answers wrong_shard / 421 for it
 * and deletes its documents after the drop delay, and a {@link ShardedDocClient} following the map
 * reads every document right throughout (0 failed reads), then reads updates made after the move
 * from b. The nodes keep their own map files and {@code docstore move-partition --push} pushes each
 * step to both; the second test changes one shared file they follow.
 */
class PartitionMoveTest {

  private static final String TOPIC = "docs";
  private static final int PARTITIONS = 3;
  private static final int MOVED = 1;
  private static final int IDS = 3_000 * TestSupport.scale();

  @TempDir Path dir;

  private final ObjectMapper json = new ObjectMapper();

  @Test
  void aPartitionMovesUnderReadLoadWithoutAFailedRead() throws Exception {
    Random random = new Random(TestSupport.seed("PartitionMoveTest"));
    Map<Long, String> model = new ConcurrentHashMap<>();
    try (KafkaProcess kafka = KafkaProcess.start(dir.resolve("broker"))) {
      TopicModel.createTopic(kafka.bootstrap(), TOPIC, PARTITIONS);
      try (DocProducer producer = DocProducer.create(kafka.bootstrap(), TOPIC)) {
        for (long id = 0; id < IDS; id++) {
          String v = "{\"id\":" + id + ",\"v\":0}";
          model.put(id, v);
          producer.put(id, v.getBytes(StandardCharsets.UTF_8));
        }
        producer.flush();
      }
      int rpcA = freePort();
      int rpcB = freePort();
      // Each node keeps its own copy of the map (no shared directory): the move pushes it.
      Path mapA = dir.resolve("a.map");
      Path mapB = dir.resolve("b.map");
      for (Path map : List.of(mapA, mapB)) {
        writeMap(map, "shard a 0-1 127.0.0.1:" + rpcA, "shard b 2 127.0.0.1:" + rpcB);
      }
      try (ServiceFixture a = shard(kafka, mapA, "a", rpcA);
          ServiceFixture b = shard(kafka, mapB, "b", rpcB)) {
        awaitTrue(
            "both shards caught up", () -> caughtUp(a, 0) && caughtUp(a, 1) && caughtUp(b, 2));
        try (ShardedDocClient client =
            ShardedDocClient.connect(
                List.of(URI.create(a.service.readUrl()), URI.create(b.service.readUrl())),
                Duration.ofSeconds(5),
                c -> c.requestTimeout(Duration.ofSeconds(5)))) {
          ReadLoad load = ReadLoad.start(client, model, IDS, 2, random.nextLong());
          // docstore move-partition: b builds the partition from the topic (a still serves it),
          // then serves it; a answers wrong_shard / 421 for it and drops it after the delay.
          int exit =
              io.docstore.service.cli.Main.run(
                  "move-partition",
                  Integer.toString(MOVED),
                  "--to",
                  "b",
                  "--push",
                  a.service.adminUrl() + "," + b.service.adminUrl(),
                  "--admin",
                  b.service.adminUrl(),
                  "--timeout",
                  "60");
          assertThat(exit).isZero();
          assertThat(b.service.store().heldLogPartitions()).contains(MOVED);
          for (Path map : List.of(mapA, mapB)) {
            assertThat(Files.readString(map)).contains("shard a 0 ").contains("shard b 1,2 ");
          }
          awaitTrue(
              "a dropped partition 1",
              () -> !a.service.store().heldLogPartitions().contains(MOVED));
          load.awaitMore(100);
          assertThat(load.stop()).as("failed or wrong reads during the move").isEmpty();
          assertThat(load.reads()).isGreaterThan(200);
          assertThat(client.map().shards().get(client.map().shardOfPartition(MOVED)).name())
              .isEqualTo("b");

          long moved = idIn(MOVED);
          assertThat(a.service.store().get(moved)).isNull();
          assertThat(a.service.store().visibleLogPosition(MOVED)).isEqualTo(-1);
          HttpResponse<String> misdirected = a.get("/docs/" + moved);
          assertThat(misdirected.statusCode()).isEqualTo(421);
          assertThat(misdirected.body()).contains("partition " + MOVED).contains("shard b");

          // Updates after the move reach b, not a.
          try (DocProducer producer = DocProducer.create(kafka.bootstrap(), TOPIC)) {
            producer.put(moved, "{\"after\":true}".getBytes(StandardCharsets.UTF_8)).get();
          }
          awaitTrue(
              "the update after the move is read from b",
              () -> {
                Document d = client.get(moved);
                return d != null && new String(d.body(), StandardCharsets.UTF_8).contains("after");
              });
          assertThat(a.service.store().get(moved)).isNull();
          for (long id = 0; id < IDS; id++) {
            if (KafkaKeys.partitionFor(id, PARTITIONS) == MOVED) {
              assertThat(a.service.store().get(id)).as("id %d on a", id).isNull();
            } else if (KafkaKeys.partitionFor(id, PARTITIONS) == 0) {
              assertThat(b.service.store().get(id)).as("id %d on b", id).isNull();
            }
          }
        }
      }
    }
  }

  /**
   * A partition the map takes away and gives back before the drop delay is kept and served again;
   * one taken away while the shard is down (its drop pending) is dropped when it starts.
   */
  @Test
  void aPartitionGivenBackIsKeptAndOneLostWhileDownIsDroppedAtStart() throws Exception {
    try (KafkaProcess kafka = KafkaProcess.start(dir.resolve("broker"))) {
      TopicModel.createTopic(kafka.bootstrap(), TOPIC, PARTITIONS);
      long moved = idIn(MOVED);
      try (DocProducer producer = DocProducer.create(kafka.bootstrap(), TOPIC)) {
        for (long id = 0; id < 300; id++) {
          producer.put(id, ("{\"v\":" + id + "}").getBytes(StandardCharsets.UTF_8));
        }
        producer.flush();
      }
      int rpcA = freePort();
      int rpcB = freePort();
      Path map = dir.resolve("shards.map");
      String[] before = {"shard a 0-1 127.0.0.1:" + rpcA, "shard b 2 127.0.0.1:" + rpcB};
      String[] after = {"shard a 0 127.0.0.1:" + rpcA, "shard b 1-2 127.0.0.1:" + rpcB};
      writeMap(map, before);
      try (ServiceFixture a = shard(kafka, map, "a", rpcA, "60s")) {
        awaitTrue("a caught up", () -> caughtUp(a, 0) && caughtUp(a, MOVED));
        writeMap(map, after);
        awaitTrue("a's drop of partition 1 pending", () -> dropping(a).contains(MOVED));
        assertThat(a.get("/docs/" + moved).statusCode()).isEqualTo(421);
        writeMap(map, before);
        awaitTrue("the drop called off", () -> dropping(a).isEmpty());
        awaitTrue("partition 1 served again", () -> a.get("/docs/" + moved).statusCode() == 200);
        assertThat(a.service.store().heldLogPartitions()).contains(MOVED);
        writeMap(map, after);
        awaitTrue("a's drop of partition 1 pending", () -> dropping(a).contains(MOVED));
      }
      // Restarted with the drop still pending: it is scheduled again and done.
      try (ServiceFixture a = shard(kafka, map, "a", rpcA, "200ms")) {
        awaitTrue(
            "partition 1 dropped after the restart",
            () -> !a.service.store().heldLogPartitions().contains(MOVED));
        assertThat(a.service.store().get(moved)).isNull();
        assertThat(a.service.store().get(idIn(0))).isNotNull();
      }
    }
  }

  /** The partitions a shard's {@code /stats} lists as dropping. */
  private List<Integer> dropping(ServiceFixture s) throws Exception {
    List<Integer> out = new java.util.ArrayList<>();
    for (JsonNode d : json.readTree(s.adminGet("/stats").body()).path("kafka").path("dropping")) {
      out.add(d.path("partition").asInt());
    }
    return out;
  }

  private ServiceFixture shard(KafkaProcess kafka, Path map, String name, int rpcPort)
      throws Exception {
    return shard(kafka, map, name, rpcPort, "1s");
  }

  private ServiceFixture shard(
      KafkaProcess kafka, Path map, String name, int rpcPort, String dropDelay) throws Exception {
    Map<String, Object> o = new HashMap<>();
    o.put("docstore.rpc.enabled", true);
    o.put("docstore.rpc.port", rpcPort);
    o.put("docstore.updates.kafka.bootstrap-servers", kafka.bootstrap());
    o.put("docstore.updates.kafka.topic", TOPIC);
    o.put("docstore.cluster.shard-map", map.toString());
    o.put("docstore.cluster.shard", name);
    o.put("docstore.cluster.drop-delay", dropDelay);
    return ServiceFixture.start(dir.resolve("data-" + name), o);
  }

  /** Replaces the map file at once, as an operator's tool should (a reader never sees half). */
  private static void writeMap(Path map, String... shards) throws Exception {
    Path tmp = map.resolveSibling(map.getFileName() + ".tmp");
    Files.writeString(tmp, "partitions " + PARTITIONS + "\n" + String.join("\n", shards) + "\n");
    Files.move(tmp, map, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  /** Whether the shard has applied every message of the partition (the topic is not written). */
  private boolean caughtUp(ServiceFixture s, int partition) throws Exception {
    JsonNode parts = json.readTree(s.adminGet("/stats").body()).path("kafka").path("partitions");
    for (JsonNode p : parts) {
      if (p.path("partition").asInt() == partition) {
        return p.path("lagMessages").asLong(-1) == 0;
      }
    }
    return false;
  }

  private static long idIn(int partition) {
    for (long id = 0; ; id++) {
      if (KafkaKeys.partitionFor(id, PARTITIONS) == partition) {
        return id;
      }
    }
  }

  @FunctionalInterface
  private interface Check {
    boolean test() throws Exception;
  }

  private static void awaitTrue(String what, Check check) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!check.test()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what);
      }
      Thread.sleep(50);
    }
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
