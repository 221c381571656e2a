package io.docstore.service.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.client.Document;
import io.docstore.client.KafkaKeys;
import io.docstore.client.ShardMap;
import io.docstore.client.ShardedDocClient;
import io.docstore.service.ServiceFixture;
import io.docstore.service.rpc.RpcServer;
import io.docstore.service.rpc.TestSource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three shards of six partitions, each a real RPC server holding only the documents of its
 * partitions (as a shard fed by the update log does): the sharded client finds every document on
 * the shard Kafka's default partitioner sends its record to, in the order asked, and nothing that
 * sits on another shard.
 */
class ShardedDocClientTest {

  private static final int PARTITIONS = 6;
  private static final int DOCS = 3_000;

  private final List<RpcServer> servers = new ArrayList<>();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @AfterEach
  void stop() {
    servers.forEach(RpcServer::close);
  }

  private RpcServer serve(TestSource source) throws IOException {
    RpcServer s = new RpcServer(source, RpcServer.Options.builder().port(0).build(), registry);
    s.start();
    servers.add(s);
    return s;
  }

  @Test
  void everyIdIsReadFromTheShardOfItsPartition() throws IOException {
    String[] names = {"a", "b", "c"};
    TestSource[] sources = {new TestSource(), new TestSource(), new TestSource()};
    for (long id = 0; id < DOCS; id++) {
      int shard = KafkaKeys.partitionFor(id, PARTITIONS) / 2; // a: 0-1, b: 2-3, c: 4-5
      sources[shard].put(id, id + 1, 64);
    }
    // A decoy: document DOCS + 1 sits on a shard that does not serve its partition.
    long decoy = DOCS + 1;
    int home = KafkaKeys.partitionFor(decoy, PARTITIONS) / 2;
    sources[(home + 1) % 3].put(decoy, 7, 64);
    StringBuilder map = new StringBuilder("# three shards\npartitions " + PARTITIONS + "\n");
    for (int s = 0; s < 3; s++) {
      map.append("shard ")
          .append(names[s])
          .append(' ')
          .append(2 * s)
          .append('-')
          .append(2 * s + 1)
          .append(" 127.0.0.1:")
          .append(serve(sources[s]).port())
          .append('\n');
    }
    ShardMap parsed = ShardMap.parse(map.toString());
    assertThat(ShardMap.parse(parsed.toString()).toString()).isEqualTo(parsed.toString());
    try (ShardedDocClient client =
        ShardedDocClient.open(parsed, b -> b.requestTimeout(Duration.ofSeconds(10)))) {
      Random rnd = new Random(22);
      for (int round = 0; round < 20; round++) {
        long[] ids = new long[50];
        for (int i = 0; i < ids.length; i++) {
          ids[i] = rnd.nextInt(DOCS + 100); // some past the last document: absent
        }
        Document[] got = client.getAll(ids);
        assertThat(got).hasSize(ids.length);
        for (int i = 0; i < ids.length; i++) {
          if (ids[i] >= DOCS) {
            assertThat(got[i]).as("id %d", ids[i]).isNull();
          } else {
            assertThat(got[i]).as("id %d", ids[i]).isNotNull();
            assertThat(got[i].id()).isEqualTo(ids[i]);
            assertThat(got[i].sequence()).isEqualTo(ids[i] + 1);
          }
        }
      }
      assertThat(client.get(1234).id()).isEqualTo(1234);
      assertThat(client.get(decoy)).as("a document on the wrong shard is not found").isNull();
      assertThat(client.getAll(new long[] {decoy, 5})[1].id()).isEqualTo(5);
    }
  }

  /** Every node serves the map it was given on GET /cluster; a client needs one node's address. */
  @Test
  void aNodeServesItsShardMapAndAClientFetchesIt(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("shards.map");
    Files.writeString(
        file,
        "partitions 3\nshard a 0 127.0.0.1:7001\nshard b 1-2 127.0.0.1:7002 127.0.0.1:7102\n");
    try (ServiceFixture node =
            ServiceFixture.start(
                dir.resolve("node"), Map.of("docstore.cluster.shard-map", file.toString()));
        ServiceFixture alone = ServiceFixture.start(dir.resolve("alone"))) {
      ShardMap fetched = ShardMap.fetch(URI.create(node.service.readUrl()), Duration.ofSeconds(5));
      assertThat(fetched.toString()).isEqualTo(ShardMap.read(file).toString());
      assertThat(fetched.shards().get(1).servers()).hasSize(2);
      assertThat(node.get("/cluster").headers().firstValue("content-type").orElse(""))
          .startsWith("text/plain");
      assertThatThrownBy(
              () -> ShardMap.fetch(URI.create(alone.service.readUrl()), Duration.ofSeconds(5)))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("404");
    }
    Files.writeString(file, "partitions 2\nshard a 0 127.0.0.1:7001\n");
    assertThatThrownBy(
            () ->
                ServiceFixture.config(
                    dir.resolve("bad"), Map.of("docstore.cluster.shard-map", file.toString())))
        .hasMessageContaining("docstore.cluster.shard-map")
        .hasMessageContaining("partition 1 has no shard");
  }

  @Test
  void aMapThatLeavesAPartitionOutOrGivesItTwiceIsRefused() {
    assertThatThrownBy(() -> ShardMap.parse("partitions 3\nshard a 0-1 127.0.0.1:1\n"))
        .hasMessageContaining("partition 2 has no shard");
    assertThatThrownBy(
            () -> ShardMap.parse("partitions 2\nshard a 0-1 127.0.0.1:1\nshard b 1 127.0.0.1:2\n"))
        .hasMessageContaining("partition 1 is in shard a and in shard b");
    assertThatThrownBy(() -> ShardMap.parse("partitions 2\nshard a 0-1\n"))
        .hasMessageContaining("line 2");
    assertThatThrownBy(() -> ShardMap.parse("shard a 0 127.0.0.1:1\n"))
        .hasMessageContaining("partitions");
  }

  @Test
  void aShardBuildsAPartitionItDoesNotServeYet() {
    ShardMap m =
        ShardMap.parse(
            "partitions 3\nshard a 0-1 127.0.0.1:1\nshard b 2,+1 127.0.0.1:2\nshard c +0 127.0.0.1:3\n");
    assertThat(m.shard("b").partitions()).containsExactly(2);
    assertThat(m.shard("b").building()).containsExactly(1);
    assertThat(m.shard("b").consumed()).containsExactly(2, 1);
    assertThat(m.shard("c").partitions()).isEmpty();
    assertThat(m.shards().get(m.shardOfPartition(1)).name()).isEqualTo("a");
    assertThat(ShardMap.parse(m.toString()).toString()).isEqualTo(m.toString());
    assertThat(m.toString()).contains("shard b 2,+1 ").contains("shard c +0 ");
    assertThatThrownBy(() -> ShardMap.parse("partitions 2\nshard a 0-1,+1 127.0.0.1:1\n"))
        .hasMessageContaining("shard a names partition 1 twice");
    assertThatThrownBy(
            () -> ShardMap.parse("partitions 2\nshard a 0-1 127.0.0.1:1\nshard a +0 127.0.0.1:2\n"))
        .hasMessageContaining("two shards are named a");
    assertThatThrownBy(() -> ShardMap.parse("partitions 2\nshard a 0-1,+2 127.0.0.1:1\n"))
        .hasMessageContaining("partition +2 is not in [0, 2)");
    assertThatThrownBy(() -> ShardMap.parse("partitions 2\nshard a 0,-1 127.0.0.1:1\n"))
        .hasMessageContaining("not a partition number");
    // The two steps of a move, as docstore move-partition writes them.
    ShardMap two = ShardMap.parse("partitions 3\nshard a 0-1 127.0.0.1:1\nshard b 2 127.0.0.1:2\n");
    ShardMap step1 = two.building(1, "b");
    assertThat(step1.shard("b").building()).containsExactly(1);
    assertThat(step1.shards().get(step1.shardOfPartition(1)).name()).isEqualTo("a");
    assertThat(step1.building(1, "b")).isSameAs(step1);
    ShardMap step2 = step1.moved(1, "b");
    assertThat(step2.shard("a").partitions()).containsExactly(0);
    assertThat(step2.shard("b").partitions()).containsExactly(1, 2);
    assertThat(step2.shard("b").building()).isEmpty();
    ShardMap emptied = step2.moved(0, "b");
    assertThat(emptied.shard("a").partitions()).isEmpty();
    assertThat(emptied.toString()).contains("shard a - 127.0.0.1:1");
    assertThat(ShardMap.parse(emptied.toString()).toString()).isEqualTo(emptied.toString());
    assertThatThrownBy(() -> two.building(1, "z")).hasMessageContaining("no shard 'z'");
  }

  /**
   * A node with {@code cluster.shard} reads its map file again when it changes, answers 421 for a
   * document of a partition its shard does not serve, and keeps the last good map when the file
   * holds a bad one.
   */
  @Test
  void aNodeFollowsItsMapFileAndRefusesDocumentsOfOtherShards(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("shards.map");
    Files.writeString(
        file, "partitions 2\nshard a 0-1 127.0.0.1:7001\nshard b +1 127.0.0.1:7002\n");
    long inOne = 0;
    while (io.docstore.client.KafkaKeys.partitionFor(inOne, 2) != 1) {
      inOne++;
    }
    try (ServiceFixture node =
        ServiceFixture.start(
            dir.resolve("node"),
            Map.of("docstore.cluster.shard-map", file.toString(), "docstore.cluster.shard", "a"))) {
      assertThat(node.put(inOne, "{\"x\":1}").statusCode()).isEqualTo(200);
      assertThat(node.get("/docs/" + inOne).statusCode()).isEqualTo(200);
      Files.writeString(file, "partitions 2\nshard a 0 127.0.0.1:7001\nshard b 1 127.0.0.1:7002\n");
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (node.get("/docs/" + inOne).statusCode() != 421 && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      var r = node.get("/docs/" + inOne);
      assertThat(r.statusCode()).isEqualTo(421);
      assertThat(r.body()).contains("partition 1").contains("served by shard b");
      assertThat(node.get("/docs?ids=" + inOne).statusCode()).isEqualTo(421);
      assertThat(node.get("/cluster").body()).contains("shard b 1 ");
      // A map without this node's shard is not taken.
      Files.writeString(file, "partitions 2\nshard b 0-1 127.0.0.1:7002\n");
      Thread.sleep(2_500);
      assertThat(node.get("/cluster").body()).contains("shard a 0 ");
    }
    assertThatThrownBy(
            () ->
                ServiceFixture.config(
                    dir.resolve("bad"),
                    Map.of(
                        "docstore.cluster.shard-map",
                        file.toString(),
                        "docstore.cluster.shard",
                        "z")))
        .hasMessageContaining("docstore.cluster.shard")
        .hasMessageContaining("no shard 'z'");
    assertThatThrownBy(
            () -> ServiceFixture.config(dir.resolve("bad"), Map.of("docstore.cluster.shard", "a")))
        .hasMessageContaining("needs cluster.shard-map");
  }
}
