package io.docstore.client;

import java.io.Closeable;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Writes documents to the Kafka topic that docstore shards consume, in the message format of
 * docs/formats/kafka-messages.md: key = the document ID in decimal ASCII ({@link KafkaKeys}), value
 * = the JSON document (null for a delete), an optional {@value #EXPIRES_AT_HEADER} header. Records
 * are partitioned by Kafka's default partitioner, which {@link #partitionFor} computes without a
 * producer, so a document lands in the partition its shard serves.
 *
 * <p>Defaults a docstore user wants ({@link #defaults()}): {@code acks=all} and idempotence (an
 * acknowledged write is on every in-sync replica, retries never duplicate or reorder), LZ4
 * compression, 5 ms of linger and 64 KiB batches, and requests of up to 2 MiB so that a document at
 * docstore's default limit of 1 MiB fits (the topic's {@code max.message.bytes} must allow it too).
 * Any producer setting can be overridden at {@link #create(String, String, Map)}.
 *
 * <p>This class needs {@code org.apache.kafka:kafka-clients} on the class path: docstore-client
 * declares it optional, so an application that produces adds it (the version docstore is built
 * with, {@code docs/decisions.md}); {@link DocClient} does not need it.
 *
 * <p>The futures complete on the Kafka producer's I/O thread: do not block in stages chained to
 * them. A call blocks only while the producer's buffer is full ({@code max.block.ms}). Thread-safe;
 * share one instance.
 */
public final class DocProducer implements Closeable {

  /** The header that carries a put's expiry: epoch milliseconds, decimal ASCII. */
  public static final String EXPIRES_AT_HEADER = "docstore-expires-at";

  private final KafkaProducer<byte[], byte[]> producer;
  private final String topic;

  private DocProducer(KafkaProducer<byte[], byte[]> producer, String topic) {
    this.producer = producer;
    this.topic = topic;
  }

  /** A producer to {@code topic} with the {@link #defaults()}. */
  public static DocProducer create(String bootstrapServers, String topic) {
    return create(bootstrapServers, topic, Map.of());
  }

  /**
   * A producer to {@code topic} with the {@link #defaults()} and then {@code overrides} (Kafka
   * producer settings by name, e.g. {@code "compression.type" -> "zstd"}, or a secured cluster's
   * {@code security.protocol}, {@code sasl.mechanism} and {@code sasl.jaas.config}); serializers
   * are always byte arrays.
   */
  public static DocProducer create(
      String bootstrapServers, String topic, Map<String, ?> overrides) {
    Objects.requireNonNull(topic, "topic");
    Map<String, Object> config = new HashMap<>(defaults());
    config.putAll(overrides);
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    return new DocProducer(
        new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer()), topic);
  }

  /** The producer settings DocProducer uses unless overridden. */
  public static Map<String, Object> defaults() {
    return Map.of(
        ProducerConfig.ACKS_CONFIG,
        "all",
        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
        true,
        ProducerConfig.COMPRESSION_TYPE_CONFIG,
        "lz4",
        ProducerConfig.LINGER_MS_CONFIG,
        5,
        ProducerConfig.BATCH_SIZE_CONFIG,
        64 * 1024,
        ProducerConfig.MAX_REQUEST_SIZE_CONFIG,
        2 * 1024 * 1024);
  }

  /**
   * The partition, of {@code partitions}, that document {@code id}'s records land in: Kafka's
   * default partitioner over the record key ({@link KafkaKeys#partitionFor}).
   */
  public static int partitionFor(long id, int partitions) {
    return KafkaKeys.partitionFor(id, partitions);
  }

  /** Puts document {@code id} (a JSON object, UTF-8); completes once the topic acknowledged it. */
  public CompletableFuture<LogPosition> put(long id, byte[] json) {
    return send(id, Objects.requireNonNull(json, "json"), 0);
  }

  /**
   * Puts document {@code id} that expires at {@code expiresAtMillis} (epoch milliseconds, positive;
   * one in the past is accepted: the document is absent at once), as {@code X-Expires-At} does on
   * {@code PUT /docs/{id}}.
   */
  public CompletableFuture<LogPosition> put(long id, byte[] json, long expiresAtMillis) {
    if (expiresAtMillis <= 0) {
      throw new IllegalArgumentException(
          "expiresAtMillis must be positive (epoch milliseconds), got " + expiresAtMillis);
    }
    return send(id, Objects.requireNonNull(json, "json"), expiresAtMillis);
  }

  /** Deletes document {@code id}: a record with a null value (a tombstone). */
  public CompletableFuture<LogPosition> delete(long id) {
    return send(id, null, 0);
  }

  /** Sends whatever is batched and waits until every write sent before has completed. */
  public void flush() {
    producer.flush();
  }

  /** Sends what is batched, waits for it, and closes the connections. */
  @Override
  public void close() {
    producer.close();
  }

  /** Sends one record; {@code expiresAtMillis} 0 is none. */
  private CompletableFuture<LogPosition> send(long id, byte[] value, long expiresAtMillis) {
    ProducerRecord<byte[], byte[]> record =
        new ProducerRecord<>(topic, KafkaKeys.encode(id), value);
    if (expiresAtMillis > 0) {
      record
          .headers()
          .add(
              EXPIRES_AT_HEADER,
              Long.toString(expiresAtMillis).getBytes(StandardCharsets.US_ASCII));
    }
    CompletableFuture<LogPosition> f = new CompletableFuture<>();
    try {
      producer.send(
          record,
          (metadata, e) -> {
            if (e != null) {
              f.completeExceptionally(e);
            } else {
              f.complete(new LogPosition(metadata.partition(), metadata.offset()));
            }
          });
    } catch (RuntimeException e) {
      f.completeExceptionally(e); // e.g. closed, or the buffer stayed full past max.block.ms
    }
    return f;
  }
}
