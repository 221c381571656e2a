package io.docstore.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.client.DocProducer;
import io.docstore.kafka.local.KafkaProcess;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code docstore produce} as a user runs it, against a real broker (kafka-local). */
class ProduceCommandTest {

  @TempDir static Path brokerDir;
  @TempDir Path dir;

  private static KafkaProcess kafka;

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

  private record Run(int exit, String out, String err) {}

  private static Run run(String... args) {
    PrintStream oldOut = System.out;
    PrintStream oldErr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      int exit = Main.run(args);
      return new Run(
          exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(oldOut);
      System.setErr(oldErr);
    }
  }

  @Test
  void producesEveryValidLineInTheMessageFormatAndListsTheInvalidOnes() throws Exception {
    createTopic("docs", 3);
    Files.writeString(dir.resolve("shards.conf"), "docstore.queue.max-body = 1K\n");
    StringBuilder in = new StringBuilder();
    // id, value (null: delete), expiry header (or null), in file order
    List<List<String>> expected = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      long id = 1_000_003L * i;
      String doc = "{\"n\": " + i + ", \"s\": \"caf\u00e9\"}"; // spacing and UTF-8 kept as written
      if (i % 10 == 3) {
        in.append("{\"id\":").append(id).append(",\"op\":\"delete\"}\n");
        expected.add(Arrays.asList(Long.toString(id), null, null));
      } else if (i % 10 == 4) {
        long at = 1_900_000_000_000L + i;
        in.append("{\"id\":").append(id).append(",\"expiresAt\":").append(at);
        in.append(",\"doc\":").append(doc).append("}\n");
        expected.add(Arrays.asList(Long.toString(id), doc, Long.toString(at)));
      } else {
        in.append("{\"id\":").append(id).append(",\"doc\":").append(doc).append("}\r\n");
        expected.add(Arrays.asList(Long.toString(id), doc, null));
      }
      if (i == 10) {
        in.append("\n"); // blank: line 12, skipped
        in.append("{\"id\":12,\"doc\":[1,2]}\n"); // line 13
        in.append("not json\n"); // line 14
      }
      if (i == 200) {
        in.append("{\"id\":-5,\"doc\":{}}\n"); // line 205
        in.append("{\"id\":7,\"doc\":{\"big\":\"").append("x".repeat(2000)).append("\"}}\n");
      }
    }
    in.append("{\"id\":99,\"doc\":{\"last\":true}}"); // no newline at the end
    expected.add(Arrays.asList("99", "{\"last\":true}", null));
    Path file = dir.resolve("in.ndjson");
    Files.writeString(file, in, StandardCharsets.UTF_8);

    Run r =
        run(
            "produce",
            file.toString(),
            "--kafka",
            kafka.bootstrap(),
            "--topic",
            "docs",
            "--config",
            dir.resolve("shards.conf").toString());

    assertThat(r.exit()).as(r.err()).isEqualTo(1);
    assertThat(r.out())
        .as(r.err())
        .contains("produced 301 records (30 deletes)")
        .contains("to topic docs (3 partitions)")
        .contains("4 invalid lines; 0 not acknowledged");
    assertThat(r.err().lines().filter(l -> l.startsWith("produce: line ")))
        .extracting(l -> l.substring(0, l.indexOf(':', "produce: line ".length())))
        .containsExactly(
            "produce: line 13", "produce: line 14", "produce: line 205", "produce: line 206");
    assertThat(r.err()).contains("line 206: document is ").contains("over the limit of 1024");

    List<ConsumerRecord<byte[], byte[]>> records = readAll("docs", 3);
    assertThat(records).hasSize(expected.size());
    // one partition keeps the file's order of its records
    records.sort(
        java.util.Comparator.comparingInt((ConsumerRecord<byte[], byte[]> c) -> c.partition())
            .thenComparingLong(ConsumerRecord::offset));
    List<List<String>> got = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> c : records) {
      String key = new String(c.key(), StandardCharsets.US_ASCII);
      assertThat(c.partition()).isEqualTo(DocProducer.partitionFor(Long.parseLong(key), 3));
      Header h = c.headers().lastHeader(DocProducer.EXPIRES_AT_HEADER);
      got.add(
          Arrays.asList(
              key,
              c.value() == null ? null : new String(c.value(), StandardCharsets.UTF_8),
              h == null ? null : new String(h.value(), StandardCharsets.US_ASCII)));
    }
    List<List<String>> want = new ArrayList<>(expected);
    want.sort(
        java.util.Comparator.comparingInt(
            (List<String> e) -> DocProducer.partitionFor(Long.parseLong(e.get(0)), 3)));
    assertThat(got).containsExactlyElementsOf(want);
  }

  @Test
  void aMissingTopicIsNamedAndNothingIsProduced() throws Exception {
    Path file = dir.resolve("in.ndjson");
    Files.writeString(file, "{\"id\":1,\"doc\":{}}\n");
    long t0 = System.nanoTime();
    Run r = run("produce", file.toString(), "--kafka", kafka.bootstrap(), "--topic", "nosuch");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("topic 'nosuch' does not exist on " + kafka.bootstrap());
    assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(10));
    Run nowhere = run("produce", file.toString(), "--topic", "nosuch");
    assertThat(nowhere.exit()).isEqualTo(2);
    assertThat(nowhere.err())
        .contains("--kafka and --topic are required without a --config in Kafka mode");
  }

  private static void createTopic(String name, int partitions) throws Exception {
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap()))) {
      admin
          .createTopics(List.of(new NewTopic(name, partitions, (short) 1)))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
  }

  private static List<ConsumerRecord<byte[], byte[]>> readAll(String topic, int partitions) {
    Map<String, Object> config =
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            kafka.bootstrap(),
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
            false);
    List<ConsumerRecord<byte[], byte[]>> seen = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
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
        c.poll(Duration.ofMillis(500)).forEach(seen::add);
      }
    }
    return seen;
  }
}
