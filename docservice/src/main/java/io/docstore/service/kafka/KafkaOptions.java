package io.docstore.service.kafka;

import java.util.List;

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
 */
public record KafkaOptions(
    String bootstrapServers, String topic, List<Integer> partitions, long maxLag, int pollRecords) {

  public KafkaOptions {
    partitions = List.copyOf(partitions);
  }
}
