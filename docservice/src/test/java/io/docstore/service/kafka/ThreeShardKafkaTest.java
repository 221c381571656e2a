package io.docstore.service.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.client.DocProducer;
import io.docstore.client.Document;
import io.docstore.client.ShardMap;
import io.docstore.client.ShardedDocClient;
import io.docstore.io.TestSupport;
import io.docstore.kafka.local.KafkaProcess;
import io.docstore.service.torture.ServeJvm;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three real {@code docstore serve} child JVMs in Kafka mode, each consuming two partitions of a
 * 6-partition topic on a real broker and naming one shard map, ingest 100,000 updates and deletes
 * of 20,000 documents while they are produced. Mid-ingest one shard is SIGKILLed and restarted on
 * its data directory; later the broker is SIGKILLed and restarted, and the shards wait and resume.
 * Once each shard's positions equal its partitions' ends, every document read through {@link
 * ShardedDocClient} (multi-gets of 50, the map fetched from a node's {@code GET /cluster}) equals
 * the topic's last value for its key, and each shard's queue holds exactly the messages of its own
 * partitions, each once and in offset order, and nothing of another shard's. Then partition 0 moves
 * from shard 0 to shard 1 ({@code docstore move-partition}) under a read load of multi-gets through
 * a {@link ShardedDocClient} that follows the map: no read fails or reads wrong, shard 0 deletes
 * the partition's documents, and shard 1's queue holds the partition's messages exactly once.
 */
class ThreeShardKafkaTest {

  private static final int MESSAGES = 100_000 * TestSupport.scale();
  private static final int IDS = 20_000;
  private static final int PARTITIONS = 6;
  private static final int SHARDS = 3;
  private static final int RATE = 6_000; // messages produced per second, at most
  private static final int BATCH = 50; // ids per multi-get
  private static final String TOPIC = "docs";

  @TempDir Path dir;

  @Test
  void threeShardsMatchTheTopicAfterAKilledShardAndARestartedBroker() throws Exception {
    long seed = TestSupport.seed("ThreeShardKafkaTest");
    int victim = Math.floorMod(seed, SHARDS);
    TopicModel model = new TopicModel();
    ServeJvm[] shards = new ServeJvm[SHARDS];
    try (KafkaProcess kafka = KafkaProcess.start(dir.resolve("broker"))) {
      TopicModel.createTopic(kafka.bootstrap(), TOPIC, PARTITIONS);
      int[] rpc = KafkaProcess.freePorts(SHARDS);
      Path map = dir.resolve("shards.map");
      StringBuilder m = new StringBuilder("partitions " + PARTITIONS + "\n");
      for (int s = 0; s < SHARDS; s++) {
        m.append("shard ").append(s).append(' ').append(2 * s).append('-').append(2 * s + 1);
        m.append(" 127.0.0.1:").append(rpc[s]).append('\n');
        Files.writeString(
            conf(s),
            "docstore.updates.kafka { bootstrap-servers = \""
                + kafka.bootstrap()
                + "\", topic = "
                + TOPIC
                + ", max-lag = 0, poll-records = 500 }\n"
                + "docstore.cluster { shard-map = \""
                + map
                + "\", shard = \""
                + s
                + "\", drop-delay = 1s }\n"
                + "docstore.gc.enabled = false\n"
                + "docstore.index.checkpoint-interval = 300ms\n");
      }
      Files.writeString(map, m);
      try {
        for (int s = 0; s < SHARDS; s++) {
          shards[s] = launch(s, rpc[s]);
        }

        // RATE messages a second at most, from one thread (so each key's updates are in send
        // order): ~10% deletes, small values
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread producing =
            new Thread(
                () -> {
                  Random rnd = new Random(seed);
                  long start = System.nanoTime();
                  try (DocProducer producer = DocProducer.create(kafka.bootstrap(), TOPIC)) {
                    for (int i = 1; i <= MESSAGES; i++) {
                      model.sendRandom(producer, rnd, IDS, 10, 40);
                      long ahead = start + i * (1_000_000_000L / RATE) - System.nanoTime();
                      if (i % 100 == 0 && ahead > 0) {
                        TimeUnit.NANOSECONDS.sleep(ahead);
                      }
                    }
                  } catch (Throwable t) {
                    failed.set(t);
                  }
                },
                "producer");
        producing.start();

        int share = MESSAGES / SHARDS;
        shards[victim].awaitKafka(p -> ServeJvm.applied(p) >= share / 4, 60);
        shards[victim].kill9();
        shards[victim] = launch(victim, rpc[victim]);
        long before = ServeJvm.applied(shards[victim].kafkaPositions());
        assertThat(before).as("resumed where the killed one stopped").isGreaterThan(0);
        shards[victim].awaitKafka(p -> ServeJvm.applied(p) >= before + share / 4, 60);
        kafka.kill();
        kafka.restart();

        producing.join(TimeUnit.SECONDS.toMillis(120));
        assertThat(failed.get()).as("the producer").isNull();
        assertThat(producing.isAlive()).isFalse();
        model.awaitAcknowledged();
        Map<Integer, Long> ends = TopicModel.endOffsets(kafka.bootstrap(), TOPIC, PARTITIONS);
        assertThat(ends.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(MESSAGES);
        for (int s = 0; s < SHARDS; s++) {
          Map<Integer, Long> own = Map.of(2 * s, ends.get(2 * s), 2 * s + 1, ends.get(2 * s + 1));
          shards[s].awaitKafka(own::equals, 60);
          assertThat(shards[s].getAdmin("/readyz").statusCode()).isEqualTo(200);
        }

        ShardMap fetched =
            ShardMap.fetch(URI.create(shards[victim].readUrl), Duration.ofSeconds(10));
        assertThat(fetched.toString()).isEqualTo(ShardMap.read(map).toString());
        Map<Long, String> last = model.lastValues();
        try (ShardedDocClient client =
            ShardedDocClient.open(fetched, b -> b.requestTimeout(Duration.ofSeconds(10)))) {
          for (long from = 0; from < IDS; from += BATCH) {
            long[] ids = LongStream.range(from, Math.min(IDS, from + BATCH)).toArray();
            Document[] got = client.getAll(ids);
            for (int i = 0; i < ids.length; i++) {
              String body =
                  got[i] == null ? null : new String(got[i].body(), StandardCharsets.UTF_8);
              assertThat(body).as("document %d", ids[i]).isEqualTo(last.get(ids[i]));
            }
          }
        }
        moveUnderReadLoad(shards, map, last);
      } finally {
        for (ServeJvm s : shards) {
          if (s != null) {
            s.close();
          }
        }
      }
    }
    // Shard 0 consumed partitions 0 and 1, then deleted partition 0's documents when it moved.
    Map<Integer, List<String>> first =
        new java.util.TreeMap<>(TopicModel.queued(data(0), PARTITIONS));
    List<String> dropped = first.remove(MOVED);
    model.assertExactlyOnce(first, Set.of(1));
    assertThat(dropped).as("shard 0's records of the moved partition").isNotEmpty();
    assertThat(dropped.get(dropped.size() - 1)).as("the drop's deletes come last").endsWith("=-");
    model.assertExactlyOnce(TopicModel.queued(data(1), PARTITIONS), Set.of(MOVED, 2, 3));
    model.assertExactlyOnce(TopicModel.queued(data(2), PARTITIONS), Set.of(4, 5));
  }

  /** The partition moved from shard 0 to shard 1 once the topic is applied. */
  private static final int MOVED = 0;

  /**
   * Moves partition {@link #MOVED} to shard 1 with {@code docstore move-partition} while two
   * threads read random documents through a client that follows the map; every read must succeed
   * and equal {@code last}, and shard 0 must then answer 421 for the partition and hold none of it.
   */
  private void moveUnderReadLoad(ServeJvm[] shards, Path map, Map<Long, String> last)
      throws Exception {
    List<URI> nodes = new java.util.ArrayList<>();
    for (ServeJvm s : shards) {
      nodes.add(URI.create(s.readUrl));
    }
    try (ShardedDocClient client =
            ShardedDocClient.connect(
                nodes, Duration.ofSeconds(10), b -> b.requestTimeout(Duration.ofSeconds(10)));
        ReadLoad load = ReadLoad.start(client, last, IDS, 2, 1)) {
      int exit =
          io.docstore.service.cli.Main.run(
              "move-partition",
              Integer.toString(MOVED),
              "--to",
              "1",
              "--map",
              map.toString(),
              "--admin",
              shards[1].adminUrl,
              "--timeout",
              "120");
      assertThat(exit).as("docstore move-partition").isZero();
      long inMoved =
          LongStream.range(0, IDS)
              .filter(id -> DocProducer.partitionFor(id, PARTITIONS) == MOVED)
              .findFirst()
              .orElseThrow();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!shards[0].getAdmin("/stats").body().contains("\"dropping\":[]")
          || shards[0].getAdmin("/stats").body().contains("\"partition\":" + MOVED + ",")) {
        assertThat(System.nanoTime())
            .as("shard 0 dropped partition 0 in time")
            .isLessThan(deadline);
        Thread.sleep(100);
      }
      load.awaitMore(50);
      assertThat(load.stop()).as("failed or wrong reads during the move").isEmpty();
      assertThat(load.reads()).isGreaterThan(100);
      java.net.http.HttpResponse<String> misdirected =
          java.net.http.HttpClient.newHttpClient()
              .send(
                  java.net.http.HttpRequest.newBuilder(
                          URI.create(shards[0].readUrl + "/docs/" + inMoved))
                      .build(),
                  java.net.http.HttpResponse.BodyHandlers.ofString());
      assertThat(misdirected.statusCode()).isEqualTo(421);
    }
  }

  private Path conf(int shard) {
    return dir.resolve("shard-" + shard + ".conf");
  }

  private Path data(int shard) {
    return dir.resolve("shard-" + shard);
  }

  /** {@code serve} of shard {@code shard} on its data directory, its RPC on {@code rpcPort}. */
  private ServeJvm launch(int shard, int rpcPort) throws Exception {
    return ServeJvm.launch(
        dir.resolve("shard-" + shard + ".log"),
        List.of("-Ddocstore.rpc.port=" + rpcPort),
        "serve",
        "--data",
        data(shard).toString(),
        "--config",
        conf(shard).toString());
  }
}
