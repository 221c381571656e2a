package io.docstore.kafka.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local broker as tests use it: a real Kafka in a child JVM takes a compacted topic, keeps what
 * it acknowledged across a SIGKILL and a clean stop, and compacts.
 */
class LocalKafkaTest {

  @TempDir Path dir;

  @Test
  void acknowledgedRecordsSurviveKillAndCleanStop() throws Exception {
    try (KafkaProcess kafka = KafkaProcess.start(dir)) {
      try (Admin admin = admin(kafka)) {
        admin
            .createTopics(
                List.of(
                    new NewTopic("docs", 3, (short) 1)
                        .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, "compact"))))
            .all()
            .get(30, TimeUnit.SECONDS);
      }
      // 600 records over 200 keys, each acknowledged by the broker (acks=all) with its place
      Map<TopicPartition, Map<Long, String>> acked = new HashMap<>();
      try (KafkaProducer<byte[], byte[]> producer = producer(kafka)) {
        List<java.util.concurrent.Future<RecordMetadata>> sent = new ArrayList<>();
        List<String> values = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
          String key = Integer.toString(i % 200);
          String value = "{\"n\":" + i + "}";
          values.add(key + "=" + value);
          sent.add(producer.send(new ProducerRecord<>("docs", bytes(key), bytes(value))));
        }
        for (int i = 0; i < sent.size(); i++) {
          RecordMetadata m = sent.get(i).get(30, TimeUnit.SECONDS);
          acked
              .computeIfAbsent(new TopicPartition("docs", m.partition()), tp -> new TreeMap<>())
              .put(m.offset(), values.get(i));
        }
      }
      assertThat(acked).hasSize(3);
      assertThat(readAll(kafka, "docs", 3)).isEqualTo(acked);

      kafka.kill();
      assertThat(kafka.isAlive()).isFalse();
      kafka.restart();
      assertThat(readAll(kafka, "docs", 3)).as("after SIGKILL and restart").isEqualTo(acked);
      try (Admin admin = admin(kafka)) {
        TopicDescription d =
            admin
                .describeTopics(List.of("docs"))
                .allTopicNames()
                .get(30, TimeUnit.SECONDS)
                .get("docs");
        assertThat(d.partitions()).hasSize(3);
      }

      kafka.stop();
      assertThat(kafka.isAlive()).isFalse();
      kafka.restart();
      assertThat(readAll(kafka, "docs", 3)).as("after SIGTERM and restart").isEqualTo(acked);
    }
  }

  @Test
  void compactedTopicKeepsTheLastValueOfEachKey() throws Exception {
    try (KafkaProcess kafka = KafkaProcess.start(dir)) {
      try (Admin admin = admin(kafka)) {
        admin
            .createTopics(
                List.of(
                    new NewTopic("compacted", 1, (short) 1)
                        .configs(
                            Map.of(
                                TopicConfig.CLEANUP_POLICY_CONFIG, "compact",
                                TopicConfig.SEGMENT_MS_CONFIG, "100",
                                TopicConfig.MIN_CLEANABLE_DIRTY_RATIO_CONFIG, "0.01"))))
            .all()
            .get(30, TimeUnit.SECONDS);
      }
      try (KafkaProducer<byte[], byte[]> producer = producer(kafka)) {
        for (int round = 0; round < 5; round++) {
          for (int key = 0; key < 10; key++) {
            producer.send(
                new ProducerRecord<>(
                    "compacted", bytes(Integer.toString(key)), bytes("v" + round)));
          }
          producer.flush();
        }
        Thread.sleep(
            200); // past segment.ms: the next record rolls the segment, which can be cleaned
        producer.send(new ProducerRecord<>("compacted", bytes("last"), bytes("x"))).get();
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
      List<String> left;
      do {
        Thread.sleep(500); // the cleaner runs on its own schedule (log.cleaner.backoff.ms)
        left =
            new ArrayList<>(
                readAll(kafka, "compacted", 1).get(new TopicPartition("compacted", 0)).values());
      } while (left.size() > 11 && System.nanoTime() < deadline);
      List<String> expected = new ArrayList<>();
      for (int key = 0; key < 10; key++) {
        expected.add(key + "=v4");
      }
      expected.add("last=x");
      assertThat(left).as("records left after compaction").containsExactlyElementsOf(expected);
    }
  }

  private static Admin admin(KafkaProcess kafka) {
    return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap()));
  }

  private static KafkaProducer<byte[], byte[]> producer(KafkaProcess kafka) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
  }

  /** Every record of the topic's partitions, "key=value" by offset. */
  private static Map<TopicPartition, Map<Long, String>> readAll(
      KafkaProcess kafka, String topic, int partitions) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap());
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    Map<TopicPartition, Map<Long, String>> seen = new HashMap<>();
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> tps = new ArrayList<>();
      for (int i = 0; i < partitions; i++) {
        tps.add(new TopicPartition(topic, i));
      }
      c.assign(tps);
      c.seekToBeginning(tps);
      Map<TopicPartition, Long> end = c.endOffsets(tps, Duration.ofSeconds(30));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (tps.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
        assertThat(System.nanoTime()).as("read to the end in 30 s").isLessThan(deadline);
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
          seen.computeIfAbsent(new TopicPartition(r.topic(), r.partition()), tp -> new TreeMap<>())
              .put(r.offset(), string(r.key()) + "=" + string(r.value()));
        }
      }
    }
    return seen;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String string(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
