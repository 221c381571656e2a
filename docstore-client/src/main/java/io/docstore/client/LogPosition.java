package io.docstore.client;

/**
 * Where a write landed in the Kafka topic: its partition and its offset there. A shard that has
 * consumed the partition past {@code offset} has applied the write.
 */
public record LogPosition(int partition, long offset) {}
