package io.docstore.service.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.client.DocProducer;
import io.docstore.client.LogPosition;
import io.docstore.queue.DocQueue;
import io.docstore.queue.Op;
import io.docstore.queue.QueueOptions;
import io.docstore.queue.QueueRecord;
import io.docstore.queue.QueueTailer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * What a test produced to the update topic, by partition and offset as the broker acknowledged it:
 * the model a shard's documents and queue are compared with. An update is written {@code
 * "id=document"}, a delete {@code "id=-"}. Thread-safe.
 */
final class TopicModel {

  private final Map<Integer, TreeMap<Long, String>> byOffset = new HashMap<>();
  private final List<CompletableFuture<LogPosition>> pending = new ArrayList<>();

  /**
   * Creates a compacted topic of {@code partitions} partitions and waits until each partition's
   * leader answers (a produce sent before that can meet NOT_LEADER_OR_FOLLOWER, after which an
   * idempotent producer was seen stuck retrying OUT_OF_ORDER_SEQUENCE_NUMBER on that partition).
   */
  static void createTopic(String bootstrap, String topic, int partitions) throws Exception {
    createTopic(bootstrap, topic, partitions, Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, "compact"));
  }

  /** {@link #createTopic(String, String, int)} with the topic settings {@code configs}. */
  static void createTopic(
      String bootstrap, String topic, int partitions, Map<String, String> configs)
      throws Exception {
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      admin
          .createTopics(List.of(new NewTopic(topic, partitions, (short) 1).configs(configs)))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
    endOffsets(bootstrap, topic, partitions); // answered by each partition's leader
  }

  /** Each partition's end offset now. */
  static Map<Integer, Long> endOffsets(String bootstrap, String topic, int partitions) {
    List<TopicPartition> tps = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      tps.add(new TopicPartition(topic, p));
    }
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(
            Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
      Map<Integer, Long> ends = new TreeMap<>();
      c.endOffsets(tps, Duration.ofSeconds(30)).forEach((tp, o) -> ends.put(tp.partition(), o));
      return ends;
    }
  }

  /**
   * Sends one random update of {@code ids} documents: a put of a new version (3 in 4) or a delete;
   * recorded once the broker acknowledges it ({@link #awaitAcknowledged}).
   */
  void sendRandom(DocProducer producer, Random rnd, int ids) {
    sendRandom(producer, rnd, ids, 4, 300);
  }

  /**
   * Sends one random update of {@code ids} documents: a delete one time in {@code deleteOneIn},
   * else a put of a new version padded with up to {@code maxPad} bytes.
   */
  void sendRandom(DocProducer producer, Random rnd, int ids, int deleteOneIn, int maxPad) {
    long id = rnd.nextInt(ids);
    String doc =
        rnd.nextInt(deleteOneIn) == 0
            ? null
            : "{\"id\":"
                + id
                + ",\"v\":"
                + rnd.nextLong()
                + ",\"pad\":\""
                + "x".repeat(rnd.nextInt(maxPad + 1))
                + "\"}";
    CompletableFuture<LogPosition> f =
        doc == null ? producer.delete(id) : producer.put(id, doc.getBytes(StandardCharsets.UTF_8));
    String entry = id + "=" + (doc == null ? "-" : doc);
    CompletableFuture<LogPosition> recorded =
        f.thenApply(
            pos -> {
              record(pos, entry);
              return pos;
            });
    synchronized (this) {
      pending.add(recorded);
    }
  }

  /** Records a message the test produced some other way (e.g. a dead letter, as "?"). */
  synchronized void record(LogPosition pos, String entry) {
    byOffset.computeIfAbsent(pos.partition(), p -> new TreeMap<>()).put(pos.offset(), entry);
  }

  /** Waits until the broker acknowledged every update sent; fails on any that it refused. */
  void awaitAcknowledged() throws Exception {
    List<CompletableFuture<LogPosition>> all;
    synchronized (this) {
      all = new ArrayList<>(pending);
      pending.clear();
    }
    CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0])).get(120, TimeUnit.SECONDS);
  }

  /** Every document's expected body: its message with the highest offset; deletes absent. */
  synchronized Map<Long, String> lastValues() {
    Map<Long, String> last = new HashMap<>();
    for (TreeMap<Long, String> messages : byOffset.values()) {
      for (String e : messages.values()) {
        int eq = e.indexOf('=');
        long id = Long.parseLong(e.substring(0, eq));
        String body = e.substring(eq + 1);
        if (body.equals("-")) {
          last.remove(id);
        } else if (!body.equals("?")) {
          last.put(id, body);
        }
      }
    }
    return last;
  }

  /** The ids the model knows of (present or deleted). */
  synchronized java.util.Set<Long> ids() {
    java.util.Set<Long> ids = new java.util.TreeSet<>();
    for (TreeMap<Long, String> messages : byOffset.values()) {
      for (String e : messages.values()) {
        ids.add(Long.parseLong(e.substring(0, e.indexOf('='))));
      }
    }
    return ids;
  }

  /** The messages to be applied, in offset order, by partition (dead letters left out). */
  synchronized Map<Integer, List<String>> applied() {
    Map<Integer, List<String>> m = new TreeMap<>();
    byOffset.forEach(
        (p, messages) -> {
          List<String> l = new ArrayList<>();
          for (String e : messages.values()) {
            if (!e.endsWith("=?")) {
              l.add(e);
            }
          }
          m.put(p, l);
        });
    return m;
  }

  /**
   * The puts and deletes in a store's queue (its directory {@code data}, not open), in sequence
   * order, by the partition of their ID among {@code partitions}: with {@link #applied()}, each
   * message became exactly one record, in offset order.
   */
  static Map<Integer, List<String>> queued(Path data, int partitions) throws IOException {
    Map<Integer, List<String>> m = new TreeMap<>();
    try (DocQueue q = DocQueue.openReadOnly(data.resolve("queue"), QueueOptions.builder().build());
        QueueTailer t = q.tailer(1)) {
      QueueRecord r;
      while ((r = t.poll()) != null) {
        if ((r.op() != Op.PUT && r.op() != Op.PUT_EXPIRING && r.op() != Op.DELETE)
            || io.docstore.service.store.SourceKeys.isSourceKey(r.id())) {
          continue; // not a document's record (a dropped partition's position is deleted too)
        }
        String body = r.op() == Op.DELETE ? "-" : new String(r.document(), StandardCharsets.UTF_8);
        m.computeIfAbsent(DocProducer.partitionFor(r.id(), partitions), p -> new ArrayList<>())
            .add(r.id() + "=" + body);
      }
    }
    return m;
  }

  /** Asserts that {@code queued} holds exactly the applied messages, in order, per partition. */
  void assertExactlyOnce(Map<Integer, List<String>> queued) {
    assertExactlyOnce(queued, applied().keySet());
  }

  /**
   * Asserts that {@code queued} (a shard's queue) holds exactly the applied messages of {@code
   * partitions}, in order, per partition, and nothing of any other partition.
   */
  void assertExactlyOnce(Map<Integer, List<String>> queued, Set<Integer> partitions) {
    assertThat(partitions).as("the partitions of the queue's records").containsAll(queued.keySet());
    Map<Integer, List<String>> applied = applied();
    for (int partition : partitions) {
      List<String> messages = applied.getOrDefault(partition, List.of());
      List<String> got = queued.getOrDefault(partition, List.of());
      assertThat(got.size())
          .as("records in the queue from partition %d (messages: %d)", partition, messages.size())
          .isEqualTo(messages.size());
      assertThat(got).as("partition %d, in offset order", partition).isEqualTo(messages);
    }
  }
}
