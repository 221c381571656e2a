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
 * A real {@code docstore serve} child JVM in Kafka mode ingests 24,000 updates of 2,000 documents
 * from a 3-partition topic on a real broker while they are produced; it is SIGKILLed mid-ingest and
 * restarted, then the broker is SIGKILLed and restarted mid-ingest. Once caught up, every document
 * equals the topic's last value for its key, and the queue holds each message as exactly one
 * record, in offset order.
 */
class KafkaShardKillTest {

  private static final int MESSAGES = 24_000 * TestSupport.scale();
  private static final int IDS = 2_000;
  private static final String TOPIC = "docs";

  @TempDir Path dir;

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Test
  void aKilledShardAndARestartedBrokerLoseAndDuplicateNothing() throws Exception {
    long seed = TestSupport.seed("KafkaShardKillTest");
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
              + ", partitions = [0, 1, 2], max-lag = 0, poll-records = 500 }\n"
              + "docstore.gc.enabled = false\n"
              + "docstore.index.checkpoint-interval = 300ms\n");
      List<String> jvm = List.of();
      String[] serve = {"serve", "--data", data.toString(), "--config", conf.toString()};

      // about 2,000 updates a second, from one thread (so each key's updates are in send order)
      AtomicReference<Throwable> failed = new AtomicReference<>();
      Thread producing =
          new Thread(
              () -> {
                Random rnd = new Random(seed);
                try (DocProducer producer = DocProducer.create(kafka.bootstrap(), TOPIC)) {
                  for (int i = 1; i <= MESSAGES; i++) {
                    model.sendRandom(producer, rnd, IDS);
                    if (i % 200 == 0) {
                      Thread.sleep(100);
                    }
                  }
                } catch (Throwable t) {
                  failed.set(t);
                }
              },
              "producer");
      producing.start();
      try (ServeJvm first = ServeJvm.launch(log, jvm, serve)) {
        first.awaitKafka(p -> ServeJvm.applied(p) >= MESSAGES / 8, 60);
        first.kill9();
      }
      try (ServeJvm second = ServeJvm.launch(log, jvm, serve)) {
        long before = ServeJvm.applied(second.kafkaPositions());
        assertThat(before).as("resumed where the killed one stopped").isGreaterThan(0);
        second.awaitKafka(p -> ServeJvm.applied(p) >= before + MESSAGES / 8, 60);
        kafka.kill();
        kafka.restart();
        producing.join(TimeUnit.SECONDS.toMillis(120));
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
