package io.docstore.service.kafka;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code docstore.updates.kafka} section: where a shard's updates come from when it is fed by a
 * Kafka topic (docs/kafka.md).
 *
 * @param bootstrapServers Kafka's {@code bootstrap.servers}: {@code host:port} entries, comma
 *     separated
 * @param topic the update topic (docs/formats/kafka-messages.md)
 * @param partitions the topic's partitions this shard consumes, distinct, in the order given
 * @param maxLag the most messages any partition may lag behind its end for {@code /readyz} to
 *     answer 200
 * @param pollRecords the most messages one poll returns ({@code max.poll.records}): the largest
 *     batch appended at once
 * @param client settings passed to Kafka's consumer as they are (its configuration names, e.g.
 *     {@code security.protocol}), none of {@link #OWNED}
 * @param lz4CatchUpLag from how many messages behind (its partitions together) the shard appends
 *     LZ4 blocks instead of records compressed with the queue's dictionary, until it is caught up
 *     ({@code maxLag}); 0 for never (docs/kafka.md, "Catching up")
 */
public record KafkaOptions(
    String bootstrapServers,
    String topic,
    List<Integer> partitions,
    long maxLag,
    int pollRecords,
    Map<String, String> client,
    long lz4CatchUpLag) {

  /** {@code lz4CatchUpLag} by default: a backlog of about a second of ingest or more. */
  public static final long DEFAULT_LZ4_CATCH_UP_LAG = 100_000;

  /**
   * Consumer settings docstore decides itself, which {@code client} may not set: the servers and
   * the batch size have their own keys; the others would break the exactly-once argument (positions
   * come from the queue, never from Kafka's committed offsets or a reset; only committed messages
   * are applied) or the message format.
   */
  public static final Set<String> OWNED =
      Set.of(
          "bootstrap.servers",
          "max.poll.records",
          "enable.auto.commit",
          "auto.offset.reset",
          "isolation.level",
          "allow.auto.create.topics",
          "key.deserializer",
          "value.deserializer");

  public KafkaOptions {
    if (lz4CatchUpLag < 0) {
      throw new IllegalArgumentException("lz4CatchUpLag is negative: " + lz4CatchUpLag);
    }
    partitions = List.copyOf(partitions);
    client = Map.copyOf(client);
    for (String key : client.keySet()) {
      if (OWNED.contains(key)) {
        throw new IllegalArgumentException(key + " is docstore's to set");
      }
    }
  }

  /** Without client settings. */
  public KafkaOptions(
      String bootstrapServers,
      String topic,
      List<Integer> partitions,
      long maxLag,
      int pollRecords) {
    this(bootstrapServers, topic, partitions, maxLag, pollRecords, Map.of());
  }

  /** With the default {@code lz4CatchUpLag}. */
  public KafkaOptions(
      String bootstrapServers,
      String topic,
      List<Integer> partitions,
      long maxLag,
      int pollRecords,
      Map<String, String> client) {
    this(
        bootstrapServers, topic, partitions, maxLag, pollRecords, client, DEFAULT_LZ4_CATCH_UP_LAG);
  }
}
