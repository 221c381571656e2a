package io.docstore.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.kafka.local.KafkaProcess;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link DocProducer} against a real broker (kafka-local, in its own JVM): every write lands at the
 * partition {@link DocProducer#partitionFor} names and the offset its future gave, in the message
 * format of docs/formats/kafka-messages.md; batches are compressed with the codec asked for, as the
 * broker stores them, through the project's lz4-java fork and zstd-jni.
 */
class DocProducerKafkaTest {

  @TempDir static Path dir;

  private static KafkaProcess kafka;

  @BeforeAll
  static void startBroker() throws Exception {
    kafka = KafkaProcess.start(dir);
  }

  @AfterAll
  static void stopBroker() {
    if (kafka != null) {
      kafka.close();
    }
  }

  private record Write(long id, byte[] json, long expiresAt, CompletableFuture<LogPosition> at) {}

  @Test
  void everyWriteLandsWherePartitionForSaysInTheMessageFormat() throws Exception {
    int partitions = 12;
    createTopic("docs", partitions);
    SplittableRandom rnd = new SplittableRandom(7);
    List<Write> writes = new ArrayList<>();
    try (DocProducer producer = DocProducer.create(kafka.bootstrap(), "docs")) {
      for (int i = 0; i < 3000; i++) {
        long id = rnd.nextInt(4) == 0 ? rnd.nextLong(Long.MAX_VALUE) : rnd.nextLong(100_000);
        int kind = rnd.nextInt(10);
        if (kind == 0) {
          writes.add(new Write(id, null, 0, producer.delete(id)));
        } else {
          byte[] json = ("{\"id\":" + id + ",\"i\":" + i + "}").getBytes(StandardCharsets.UTF_8);
          long expiresAt = kind == 1 ? 1_900_000_000_000L + i : 0;
          writes.add(
              new Write(
                  id,
                  json,
                  expiresAt,
                  expiresAt == 0 ? producer.put(id, json) : producer.put(id, json, expiresAt)));
        }
      }
      producer.flush();
    }
    Map<LogPosition, ConsumerRecord<byte[], byte[]>> log = readAll("docs", partitions);
    assertThat(log).hasSize(writes.size());
    for (Write w : writes) {
      LogPosition at = w.at().get(30, TimeUnit.SECONDS);
      assertThat(at.partition())
          .as("partition of %d", w.id())
          .isEqualTo(DocProducer.partitionFor(w.id(), partitions));
      ConsumerRecord<byte[], byte[]> r = log.get(at);
      assertThat(r).as("record at %s", at).isNotNull();
      assertThat(new String(r.key(), StandardCharsets.US_ASCII)).isEqualTo(Long.toString(w.id()));
      assertThat(r.value()).isEqualTo(w.json());
      Header expiry = r.headers().lastHeader(DocProducer.EXPIRES_AT_HEADER);
      if (w.expiresAt() == 0) {
        assertThat(expiry).isNull();
      } else {
        assertThat(new String(expiry.value(), StandardCharsets.US_ASCII))
            .isEqualTo(Long.toString(w.expiresAt()));
      }
    }
  }

  @Test
  void batchesAreStoredWithTheCodecAskedFor() throws Exception {
    // attributes bits 0-2 of a record batch (Kafka's message format v2): 2 snappy, 3 lz4, 4 zstd
    Map<String, Integer> codecs = Map.of("lz4", 3, "zstd", 4, "snappy", 2);
    for (Map.Entry<String, Integer> codec : codecs.entrySet()) {
      String topic = "codec-" + codec.getKey();
      createTopic(topic, 1);
      List<byte[]> docs = new ArrayList<>();
      Map<String, Object> overrides =
          codec.getKey().equals("lz4")
              ? Map.of() // the default
              : Map.of("compression.type", codec.getKey());
      try (DocProducer producer = DocProducer.create(kafka.bootstrap(), topic, overrides)) {
        for (int i = 0; i < 500; i++) {
          byte[] json =
              ("{\"title\":\"" + "compressible text ".repeat(20) + i + "\"}")
                  .getBytes(StandardCharsets.UTF_8);
          docs.add(json);
          producer.put(i, json);
        }
      }
      List<byte[]> read = new ArrayList<>();
      readAll(topic, 1).values().forEach(r -> read.add(r.value()));
      assertThat(read).as(codec.getKey()).containsExactlyElementsOf(docs);
      List<Integer> stored = batchCodecs(kafka.dir().resolve("logs").resolve(topic + "-0"));
      assertThat(stored).as(codec.getKey()).isNotEmpty().containsOnly(codec.getValue());
    }
  }

  private static void createTopic(String name, int partitions) throws Exception {
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap()))) {
      admin
          .createTopics(
              List.of(
                  new NewTopic(name, partitions, (short) 1)
                      .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, "compact"))))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
  }

  /** Every record of the topic, by position, in offset order. */
  private static Map<LogPosition, ConsumerRecord<byte[], byte[]>> readAll(
      String topic, int partitions) {
    Map<String, Object> config =
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            kafka.bootstrap(),
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
            false);
    Map<LogPosition, ConsumerRecord<byte[], byte[]>> seen = new java.util.LinkedHashMap<>();
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> tps = new ArrayList<>();
      for (int i = 0; i < partitions; i++) {
        tps.add(new TopicPartition(topic, i));
      }
      c.assign(tps);
      c.seekToBeginning(tps);
      Map<TopicPartition, Long> end = new HashMap<>(c.endOffsets(tps, Duration.ofSeconds(30)));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (tps.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
        assertThat(System.nanoTime()).as("read to the end in 30 s").isLessThan(deadline);
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
          seen.put(new LogPosition(r.partition(), r.offset()), r);
        }
      }
    }
    return seen;
  }

  /** The codec of each record batch in a partition's segment files, from the batch headers. */
  private static List<Integer> batchCodecs(Path partitionDir) throws IOException {
    List<Integer> codecs = new ArrayList<>();
    List<Path> segments;
    try (Stream<Path> s = Files.list(partitionDir)) {
      segments = s.filter(p -> p.toString().endsWith(".log")).sorted().toList();
    }
    for (Path segment : segments) {
      ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(segment));
      // batch := baseOffset:i64 batchLength:i32 partitionLeaderEpoch:i32 magic:i8 crc:u32
      //          attributes:i16 ...; batchLength counts the bytes after itself
      int pos = 0;
      while (pos + 23 <= b.limit()) {
        int length = b.getInt(pos + 8);
        assertThat(b.get(pos + 16)).as("magic").isEqualTo((byte) 2);
        codecs.add(b.getShort(pos + 21) & 7);
        pos += 12 + length;
      }
    }
    return codecs;
  }
}
