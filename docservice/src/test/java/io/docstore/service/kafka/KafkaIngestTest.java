package io.docstore.service.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.docstore.client.DocProducer;
import io.docstore.client.Document;
import io.docstore.index.IndexOptions;
import io.docstore.io.FaultInjectingFileSystem;
import io.docstore.io.SyncPolicy;
import io.docstore.io.TestSupport;
import io.docstore.kafka.local.KafkaProcess;
import io.docstore.queue.QueueOptions;
import io.docstore.service.DocStore;
import io.docstore.service.DocStoreOptions;
import io.docstore.service.ServiceFixture;
import io.docstore.service.cache.OffHeapDocCache;
import io.docstore.service.cli.Main;
import io.docstore.service.config.ConfigError;
import io.docstore.service.testing.Chromium;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * {@link KafkaIngest} against a real broker (kafka-local, a child JVM) and an in-process store: the
 * store ends up equal to the topic's last value per key, each message becomes exactly one queue
 * record across a restart of the store, dead letters are skipped without stopping the partition, an
 * unknown topic or partition stops the start, and the admin port refuses writes in Kafka mode.
 */
class KafkaIngestTest {

  @TempDir static Path brokerDir;
  @TempDir Path dir;

  private static KafkaProcess kafka;

  private final List<AutoCloseable> open = new ArrayList<>();

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

  @AfterEach
  void closeAll() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  private DocStore openStore(int maxBody) throws Exception {
    return openStore("data", maxBody);
  }

  private DocStore openStore(String name) throws Exception {
    return openStore(name, 1 << 20);
  }

  private DocStore openStore(String name, int maxBody) throws Exception {
    DocStore s =
        DocStore.open(
            dir.resolve(name),
            DocStoreOptions.builder(new OffHeapDocCache(16L << 20)).maxBodyBytes(maxBody).build());
    open.add(s);
    return s;
  }

  private KafkaIngest ingest(String topic, List<Integer> partitions, DocStore store, int maxBody)
      throws Exception {
    KafkaIngest i =
        KafkaIngest.start(
            // LZ4 appends from 1,000 messages behind: the backlogs of these tests are mixed blocks
            new KafkaOptions(kafka.bootstrap(), topic, partitions, 0, 500, Map.of(), 1_000),
            store,
            maxBody,
            new SimpleMeterRegistry());
    open.add(i);
    return i;
  }

  /** Waits until every partition's position in the store is its end offset in {@code ends}. */
  private static void awaitCaughtUp(KafkaIngest ingest, Map<Integer, Long> ends)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      boolean done = true;
      for (Object o : (List<?>) ingest.stats().get("partitions")) {
        Map<?, ?> p = (Map<?, ?>) o;
        if ((long) p.get("position") < ends.get((int) p.get("partition"))) {
          done = false;
        }
      }
      if (done) {
        return;
      }
      assertThat(System.nanoTime())
          .as("caught up with %s in 60 s: %s", ends, ingest.stats())
          .isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  /** The sum of the partitions' positions: the messages applied or skipped. */
  private static long positions(KafkaIngest ingest) {
    long n = 0;
    for (Object o : (List<?>) ingest.stats().get("partitions")) {
      n += (long) ((Map<?, ?>) o).get("position");
    }
    return n;
  }

  private static long retries(KafkaIngest ingest) {
    return (long) ingest.stats().get("retries");
  }

  /** Waits until the ingest went back to the store's positions at least {@code n} times. */
  private static void awaitRetries(KafkaIngest ingest, long n, long deadline)
      throws InterruptedException {
    while (retries(ingest) < n) {
      assertThat(System.nanoTime()).as("the ingest retries").isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  private static void assertStoreEqualsModel(DocStore store, TopicModel model) throws Exception {
    Map<Long, String> last = model.lastValues();
    for (long id : model.ids()) {
      Document d = store.get(id);
      String want = last.get(id);
      assertThat(d == null ? null : new String(d.body(), StandardCharsets.UTF_8))
          .as("document %d", id)
          .isEqualTo(want);
    }
  }

  @Test
  void theStoreEqualsTheTopicsLastValuesAndEachMessageIsOneRecordAcrossARestart() throws Exception {
    long seed = TestSupport.seed("KafkaIngestTest.model");
    Random rnd = new Random(seed);
    String topic = "model";
    TopicModel.createTopic(kafka.bootstrap(), topic, 3);
    TopicModel model = new TopicModel();
    List<Integer> all = List.of(0, 1, 2);
    try (DocProducer producer = DocProducer.create(kafka.bootstrap(), topic)) {
      for (int i = 0; i < 2_000; i++) {
        model.sendRandom(producer, rnd, 500);
      }
      model.awaitAcknowledged();
      DocStore store = openStore(1 << 20);
      KafkaIngest ingest = ingest(topic, all, store, 1 << 20);
      // produce while it ingests, and restart the store (close, open) half-way
      for (int i = 0; i < 3_000; i++) {
        model.sendRandom(producer, rnd, 500);
        if (i == 1_500) {
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
          while (positions(ingest) < 1_000) {
            assertThat(System.nanoTime()).as("applying").isLessThan(deadline);
            Thread.sleep(5);
          }
          ingest.close();
          long applied = positions(ingest);
          store.close();
          store = openStore(1 << 20);
          ingest = ingest(topic, all, store, 1 << 20);
          assertThat(positions(ingest))
              .as("resumed where the store's records end, not from the beginning")
              .isEqualTo(applied);
        }
      }
      model.awaitAcknowledged();
      awaitCaughtUp(ingest, TopicModel.endOffsets(kafka.bootstrap(), topic, 3));
      assertStoreEqualsModel(store, model);
      assertThat(ingest.notReady()).isNull();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (!Boolean.FALSE.equals(ingest.stats().get("lz4Appends"))) {
        assertThat(System.nanoTime()).as("LZ4 appends off once caught up").isLessThan(deadline);
        Thread.sleep(10);
      }
      assertThat((long) ((Map<?, ?>) store.stats().get("gc")).get("lz4Bytes"))
          .as("LZ4 blocks of the backlog after the restart (the compacted topic's 2,000 and more)")
          .isPositive();
      ingest.close();
      store.close();
    }
    model.assertExactlyOnce(TopicModel.queued(dir.resolve("data"), 3));
  }

  @Test
  void deadLettersAreCountedLoggedAndSkippedAndTheRestIsApplied() throws Exception {
    String topic = "bad";
    TopicModel.createTopic(kafka.bootstrap(), topic, 1);
    Logger logger = (Logger) LoggerFactory.getLogger(KafkaIngest.class);
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    logger.addAppender(logged);
    open.add(() -> logger.detachAppender(logged));
    String far = "1900000000000";
    // key, value, expiry header (null: none); dead letters are marked in the comments
    String[][] messages = {
      {"1", "{\"a\":1}", null},
      {"abc", "{\"a\":2}", null}, // key
      {"2", "not json", null}, // value
      {"3", "{\"pad\":\"" + "x".repeat(2000) + "\"}", null}, // too large (limit 1K)
      {"4", "{\"b\":1}", "-5"}, // expiry
      {"5", null, far}, // expiry on a delete
      {"01", "{\"a\":3}", null}, // key: leading zero
      {"6", "[1,2]", null}, // value: not an object
      {"1", null, null},
      {"7", "{\"c\":1}", far},
    };
    try (KafkaProducer<byte[], byte[]> p =
        new KafkaProducer<>(
            Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap()),
            new ByteArraySerializer(),
            new ByteArraySerializer())) {
      for (String[] m : messages) {
        ProducerRecord<byte[], byte[]> r =
            new ProducerRecord<>(topic, bytes(m[0]), m[1] == null ? null : bytes(m[1]));
        if (m[2] != null) {
          r.headers().add(DocProducer.EXPIRES_AT_HEADER, bytes(m[2]));
        }
        RecordMetadata md = p.send(r).get(30, TimeUnit.SECONDS);
        assertThat(md.offset()).isEqualTo(List.of(messages).indexOf(m));
      }
    }
    DocStore store = openStore(1024);
    KafkaIngest ingest = ingest(topic, List.of(0), store, 1024);
    awaitCaughtUp(ingest, Map.of(0, (long) messages.length));

    assertThat(store.get(1)).as("put, then deleted").isNull();
    assertThat(new String(store.get(7).body(), StandardCharsets.UTF_8)).isEqualTo("{\"c\":1}");
    for (long id = 2; id <= 6; id++) {
      assertThat(store.get(id)).as("dead letter %d", id).isNull();
    }
    Map<?, ?> p0 = (Map<?, ?>) ((List<?>) ingest.stats().get("partitions")).get(0);
    assertThat(p0.get("deadLetters"))
        .isEqualTo(Map.of("key", 2L, "value", 2L, "too_large", 1L, "expiry", 2L));
    assertThat(p0.get("lagMessages")).isEqualTo(0L);
    List<String> lines = new ArrayList<>();
    for (ILoggingEvent e : logged.list) {
      if (e.getFormattedMessage().startsWith("dead letter")) {
        lines.add(e.getFormattedMessage());
      }
    }
    assertThat(lines).hasSize(7);
    String[][] want = {
      {"offset 1", "key"},
      {"offset 2", "value"},
      {"offset 3", "too_large"},
      {"offset 4", "expiry"},
      {"offset 5", "expiry"},
      {"offset 6", "key"},
      {"offset 7", "value"}
    };
    for (int i = 0; i < want.length; i++) {
      assertThat(lines.get(i))
          .contains("topic 'bad' partition 0 " + want[i][0] + ": " + want[i][1]);
    }
  }

  @Test
  void anUnknownTopicOrPartitionOrBadServersStopTheStartWithTheirNames() throws Exception {
    TopicModel.createTopic(kafka.bootstrap(), "three", 3);
    DocStore store = openStore(1 << 20);
    assertThatThrownBy(() -> ingest("nope", List.of(0), store, 1 << 20))
        .isInstanceOf(ConfigError.class)
        .hasMessageContaining("docstore.updates.kafka.topic")
        .hasMessageContaining("topic 'nope' does not exist");
    assertThatThrownBy(() -> ingest("three", List.of(0, 5), store, 1 << 20))
        .isInstanceOf(ConfigError.class)
        .hasMessageContaining("docstore.updates.kafka.partitions")
        .hasMessageContaining("partition 5 is not in topic 'three'")
        .hasMessageContaining("[0, 1, 2]");
    assertThatThrownBy(
            () ->
                KafkaIngest.start(
                    new KafkaOptions("nohostport", "three", List.of(0), 0, 500),
                    store,
                    1 << 20,
                    new SimpleMeterRegistry()))
        .isInstanceOf(ConfigError.class)
        .hasMessageContaining("docstore.updates.kafka.bootstrap-servers: 'nohostport'")
        .hasMessageContaining("Invalid url in bootstrap.servers");
    assertThatThrownBy(
            () ->
                KafkaIngest.start(
                    new KafkaOptions(
                        kafka.bootstrap(),
                        "three",
                        List.of(0),
                        0,
                        500,
                        Map.of("security.protocol", "CARRIER_PIGEON")),
                    store,
                    1 << 20,
                    new SimpleMeterRegistry()))
        .isInstanceOf(ConfigError.class)
        .hasMessageContaining("docstore.updates.kafka.client:")
        .hasMessageContaining("CARRIER_PIGEON");
  }

  @Test
  void aTopicWhoseCleanupDeletesOldMessagesIsReportedAndACompactedOneIsNot() throws Exception {
    TopicModel.createTopic(
        kafka.bootstrap(), "retained", 1, Map.of(TopicConfig.RETENTION_MS_CONFIG, "86400000"));
    TopicModel.createTopic(kafka.bootstrap(), "compacted", 1);
    KafkaIngest retained = ingest("retained", List.of(0), openStore("retained"), 1 << 20);
    KafkaIngest compacted = ingest("compacted", List.of(0), openStore("compacted"), 1 << 20);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!retained.stats().containsKey("warnings")
        || !compacted.stats().containsKey("warnings")) {
      assertThat(System.nanoTime()).as("both checks ran").isLessThan(deadline);
      Thread.sleep(20);
    }
    assertThat((List<?>) retained.stats().get("warnings"))
        .singleElement()
        .asString()
        .contains(
            "topic 'retained' has cleanup.policy=delete with retention.ms=86400000 and"
                + " retention.bytes=-1: Kafka deletes old messages");
    assertThat((List<?>) compacted.stats().get("warnings")).isEmpty();
  }

  @Test
  void aDeletedTopicMakesTheLagInSecondsGrowWhileReadsGoOnAndARecreatedOneStopsThePartition()
      throws Exception {
    String topic = "silence";
    TopicModel.createTopic(kafka.bootstrap(), topic, 1);
    produce(topic, 10);
    DocStore store = openStore(topic);
    KafkaIngest ingest = ingest(topic, List.of(0), store, 1 << 20);
    awaitCaughtUp(ingest, Map.of(0, 10L));
    assertThat(lagSeconds(ingest)).as("caught up and answered").isZero();
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap()))) {
      admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (lagSeconds(ingest) == 0) {
      assertThat(System.nanoTime()).as("the lag grew: %s", ingest.stats()).isLessThan(deadline);
      Thread.sleep(100);
    }
    assertThat((double) ingest.stats().get("silentSeconds")).isGreaterThan(5);
    assertThat(ingest.notReady()).as("still ready: it serves what it holds").isNull();
    assertThat(store.get(3)).isNotNull();

    TopicModel.createTopic(kafka.bootstrap(), topic, 1); // a new topic of the same name
    produce(topic, 3);
    deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (ingest.notReady() == null) {
      assertThat(System.nanoTime()).as("stopped: %s", ingest.stats()).isLessThan(deadline);
      Thread.sleep(100);
    }
    assertThat(ingest.notReady()).isEqualTo("partition stopped");
    assertThat(ingest.stats().toString()).contains("out of the partition's range");
  }

  /** Puts documents 0 .. n-1 to {@code topic}. */
  private static void produce(String topic, int n) {
    try (DocProducer producer = DocProducer.create(kafka.bootstrap(), topic)) {
      for (long id = 0; id < n; id++) {
        producer.put(id, bytes("{\"n\":" + id + "}"));
      }
      producer.flush();
    }
  }

  private static double lagSeconds(KafkaIngest ingest) {
    Map<?, ?> p = (Map<?, ?>) ((List<?>) ingest.stats().get("partitions")).get(0);
    return (double) p.get("lagSeconds");
  }

  @Test
  void aFullDiskStallsIngestUntilSpaceIsFreedAndNothingIsLostOrDoubled() throws Exception {
    long seed = TestSupport.seed("KafkaIngestTest.diskFull");
    Random rnd = new Random(seed);
    String topic = "full";
    TopicModel.createTopic(kafka.bootstrap(), topic, 2);
    TopicModel model = new TopicModel();
    try (DocProducer producer = DocProducer.create(kafka.bootstrap(), topic)) {
      for (int i = 0; i < 3_000; i++) {
        model.sendRandom(producer, rnd, 300);
      }
      model.awaitAcknowledged();
    }
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    DocStore store =
        DocStore.open(
            dir.resolve("data"),
            DocStoreOptions.builder(new OffHeapDocCache(16L << 20))
                .fileSystem(fs)
                .queueOptions(QueueOptions.builder().fileSystem(fs).build())
                .indexOptions(
                    IndexOptions.builder().fileSystem(fs).syncPolicy(SyncPolicy.NONE).build())
                .build());
    open.add(store);
    fs.setSpaceLimit(128 << 10);
    KafkaIngest ingest = ingest(topic, List.of(0, 1), store, 1 << 20);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    // A refused append sends the ingest back to the store's positions (a run refused in flight
    // may still have been written whole, so those can be ahead of what /stats said before).
    awaitRetries(ingest, 1, deadline);
    assertThat((long) store.stats().get("noSpaceRefusals"))
        .as("appends met the full disk")
        .isPositive();
    long stalled = positions(ingest);
    assertThat(stalled).as("not through the topic on a full disk").isLessThan(3_000);
    assertThat(ingest.notReady()).isEqualTo("catching up");
    long retried = retries(ingest);
    awaitRetries(ingest, retried + 2, deadline);
    assertThat(positions(ingest)).as("no progress while the disk is full").isEqualTo(stalled);

    fs.clearSpaceLimit();
    awaitCaughtUp(ingest, TopicModel.endOffsets(kafka.bootstrap(), topic, 2));
    assertStoreEqualsModel(store, model);
    ingest.close();
    store.close();
    model.assertExactlyOnce(TopicModel.queued(dir.resolve("data"), 2));
  }

  @Test
  void serveExitsNamingAMissingTopic() throws Exception {
    java.nio.file.Path conf = dir.resolve("shard.conf");
    java.nio.file.Files.writeString(
        conf,
        "docstore.http.read.port = 0\ndocstore.http.admin.port = 0\ndocstore.rpc.port = 0\n"
            + "docstore.updates.kafka { bootstrap-servers = \""
            + kafka.bootstrap()
            + "\", topic = missing, partitions = [0] }\n");
    java.io.PrintStream err = System.err;
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    System.setErr(new java.io.PrintStream(captured, true, StandardCharsets.UTF_8));
    int exit;
    try {
      exit =
          Main.run("serve", "--config", conf.toString(), "--data", dir.resolve("data").toString());
    } finally {
      System.setErr(err);
    }
    assertThat(exit).isEqualTo(2);
    assertThat(captured.toString(StandardCharsets.UTF_8))
        .contains(
            "docstore: invalid configuration: docstore.updates.kafka.topic: topic 'missing'"
                + " does not exist on "
                + kafka.bootstrap());
  }

  @Test
  void theAdminPortRefusesWritesAndReportsLagInKafkaMode() throws Exception {
    String topic = "http";
    TopicModel.createTopic(kafka.bootstrap(), topic, 2);
    try (DocProducer producer = DocProducer.create(kafka.bootstrap(), topic)) {
      for (long id = 0; id < 20; id++) {
        producer.put(id, bytes("{\"n\":" + id + "}"));
      }
      producer.flush();
    }
    try (ServiceFixture f =
        ServiceFixture.start(
            dir.resolve("service"),
            Map.of(
                "docstore.updates.kafka.bootstrap-servers",
                kafka.bootstrap(),
                "docstore.updates.kafka.topic",
                topic,
                "docstore.updates.kafka.partitions",
                List.of(0, 1),
                "docstore.updates.kafka.max-lag",
                0))) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (f.adminGet("/readyz").statusCode() != 200) {
        assertThat(System.nanoTime()).as("ready within 30 s").isLessThan(deadline);
        Thread.sleep(20);
      }
      assertThat(f.get("/docs/7").body()).isEqualTo("{\"n\":7}");

      String refusal = "updates come from Kafka topic http, partitions [0, 1]";
      HttpResponse<String> put = f.put(7, "{\"n\":70}");
      assertThat(put.statusCode()).isEqualTo(409);
      assertThat(put.body()).contains(refusal).contains("docstore produce");
      assertThat(f.delete(7).statusCode()).isEqualTo(409);
      HttpResponse<String> bulk =
          f.send(
              HttpRequest.newBuilder(f.admin("/docs/_bulk"))
                  .POST(HttpRequest.BodyPublishers.ofString("{\"id\":7,\"op\":\"delete\"}\n"))
                  .build());
      assertThat(bulk.statusCode()).isEqualTo(409);
      assertThat(bulk.body()).contains(refusal);
      assertThat(f.get("/docs/7").body()).as("unchanged").isEqualTo("{\"n\":7}");

      String stats = f.adminGet("/stats").body();
      assertThat(stats)
          .contains("\"kafka\":{\"topic\":\"http\"")
          .contains("\"lagMessages\":0")
          .contains("\"lagSeconds\":0.0");
      String metrics = f.adminGet("/metrics").body();
      assertThat(metrics)
          .contains(
              "docstore_kafka_dead_letters_total{partition=\"1\",reason=\"value\",topic=\"http\"} 0.0")
          .contains("docstore_kafka_lag_messages{partition=\"0\",topic=\"http\"} 0.0")
          .contains("docstore_kafka_lag_seconds{partition=\"1\",topic=\"http\"} 0.0")
          .containsPattern("docstore_kafka_position\\{partition=\"0\",topic=\"http\"} [1-9]");

      // The admin page shows where the shard's updates come from and how far behind it is.
      if (Chromium.program().isPresent()) {
        try (Chromium chromium = Chromium.start(dir.resolve("chromium"))) {
          chromium.open(f.service.adminUrl() + "/ui");
          chromium.waitUntil(
              "document.querySelector('[data-figure=\"Kafka lag (messages)\"]') !== null");
          assertThat(chromium.text("document.getElementById('role').textContent"))
              .isEqualTo("primary, fed by Kafka topic http");
          assertThat(chromium.text(figure("Kafka topic")))
              .isEqualTo("http on " + kafka.bootstrap());
          assertThat(chromium.text(figure("Kafka partitions"))).isEqualTo("0, 1");
          assertThat(chromium.text(figure("Kafka lag (messages)"))).isEqualTo("0");
          assertThat(chromium.text(figure("Kafka lag"))).isEqualTo("0.0 s");
          assertThat(chromium.text(figure("Kafka catch-up"))).isEqualTo("no");
          assertThat(chromium.text(figure("LZ4 to recompress"))).isEqualTo("0 B");
          assertThat(chromium.text(figure("Kafka dead letters"))).isEqualTo("0");
          assertThat(chromium.text(figure("Kafka retries"))).isEqualTo("0");
          assertThat(chromium.pageErrors()).isEmpty();
        }
      }
    }
  }

  /** The text of the admin page's figure {@code label}. */
  private static String figure(String label) {
    return "document.querySelector('[data-figure=\"" + label + "\"]').textContent";
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
