package io.docstore.service.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.client.DocProducer;
import io.docstore.io.TestSupport;
import io.docstore.kafka.local.KafkaProcess;
import io.docstore.service.torture.ServeJvm;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real {@code docstore serve} child JVM in Kafka mode ingests 45,000 updates of 2,000 documents
 * from a 3-partition topic on a real broker while they are produced, and is SIGKILLed 20 times
 * mid-ingest (200 with {@code scripts/torture --full}), each time after it made some progress plus
 * a random delay, and restarted; halfway the broker is SIGKILLed and restarted too. The backlog
 * after each restart is appended as LZ4 blocks, the rest with the dictionary. Once caught up, every
 * document equals the topic's last value for its key, and the queue holds each message as exactly
 * one record, in offset order: nothing lost, nothing applied twice.
 */
class TortureKafkaKillTest {

  private static final int MESSAGES = 45_000 * TestSupport.scale();
  private static final int KILLS = 20 * TestSupport.scale();
  private static final int IDS = 2_000;
  private static final String TOPIC = "docs";

  @TempDir Path dir;

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Test
  void aKilledShardAndARestartedBrokerLoseAndDuplicateNothing() throws Exception {
    long seed = TestSupport.seed("TortureKafkaKillTest");
    Random kills = new Random(seed + 1);
    Path data = dir.resolve("data");
    Path log = dir.resolve("serve.log");
    TopicModel model = new TopicModel();
    try (KafkaProcess kafka = KafkaProcess.start(dir.resolve("broker"))) {
      TopicModel.createTopic(kafka.bootstrap(), TOPIC, 3);
      Path conf = dir.resolve("shard.conf");
      Files.writeString(
          conf,
          "docstore.updates.kafka { bootstrap-servers = \""
              + kafka.bootstrap()
              + "\", topic = "
              + TOPIC
              + ", partitions = [0, 1, 2], max-lag = 0, poll-records = 500"
              // LZ4 appends from 500 behind (each restart's backlog): kills land in both kinds
              + ", lz4-catch-up-lag = 500 }\n"
              + "docstore.gc.enabled = false\n"
              + "docstore.index.checkpoint-interval = 300ms\n");
      List<String> jvm = List.of();
      String[] serve = {"serve", "--data", data.toString(), "--config", conf.toString()};

      // about 1,000 updates a second (so that production spans the kills), from one thread (so
      // each key's updates are in send order)
      AtomicReference<Throwable> failed = new AtomicReference<>();
      Thread producing =
          new Thread(
              () -> {
                Random rnd = new Random(seed);
                try (DocProducer producer = DocProducer.create(kafka.bootstrap(), TOPIC)) {
                  for (int i = 1; i <= MESSAGES; i++) {
                    model.sendRandom(producer, rnd, IDS);
                    if (i % 100 == 0) {
                      Thread.sleep(100);
                    }
                  }
                } catch (Throwable t) {
                  failed.set(t);
                }
              },
              "producer");
      producing.start();
      long step = MESSAGES / (KILLS + 2);
      for (int k = 0; k < KILLS; k++) {
        try (ServeJvm shard = ServeJvm.launch(log, jvm, serve)) {
          long before = ServeJvm.applied(shard.kafkaPositions());
          if (k > 0) {
            assertThat(before).as("kill %d: resumed where the killed one stopped", k).isPositive();
          }
          shard.awaitKafka(p -> ServeJvm.applied(p) >= Math.min(before + step, MESSAGES), 60);
          Thread.sleep(kills.nextInt(200)); // land anywhere: mid-batch, in an fsync, in indexing
          shard.kill9();
        }
        if (k == KILLS / 2) {
          kafka.kill();
          kafka.restart();
        }
      }
      System.out.println(
          "TORTURE kafka-kill: " + KILLS + " SIGKILLs of the shard and 1 of the broker");
      try (ServeJvm second = ServeJvm.launch(log, jvm, serve)) {
        producing.join(TimeUnit.SECONDS.toMillis(300));
        assertThat(failed.get()).as("the producer").isNull();
        assertThat(producing.isAlive()).isFalse();
        model.awaitAcknowledged();
        Map<Integer, Long> ends = TopicModel.endOffsets(kafka.bootstrap(), TOPIC, 3);
        long total = ends.values().stream().mapToLong(Long::longValue).sum();
        assertThat(total).isEqualTo(MESSAGES);
        second.awaitKafka(p -> ServeJvm.applied(p) == total, 60);
        assertThat(second.getAdmin("/readyz").statusCode()).isEqualTo(200);

        Map<Long, String> last = model.lastValues();
        for (long id : model.ids()) {
          HttpResponse<String> r = get(second.readUrl + "/docs/" + id);
          if (last.containsKey(id)) {
            assertThat(r.statusCode()).as("document %d", id).isEqualTo(200);
            assertThat(r.body()).as("document %d", id).isEqualTo(last.get(id));
          } else {
            assertThat(r.statusCode()).as("deleted document %d", id).isEqualTo(404);
          }
        }
        second.kill9();
      }
    }
    model.assertExactlyOnce(TopicModel.queued(data, 3));
  }

  private HttpResponse<String> get(String url) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
