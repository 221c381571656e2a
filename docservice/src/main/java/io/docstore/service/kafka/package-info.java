/**
 * Kafka mode: a shard fed by a Kafka compacted topic (docs/kafka.md). {@link
 * io.docstore.service.kafka.KafkaIngest} consumes the configured partitions ({@link
 * io.docstore.service.kafka.KafkaOptions}) and {@link io.docstore.service.kafka.IngestPipeline}
 * prepares, appends and makes durable each partition's messages, on threads of its own, together
 * with the offsets they came from, so that the store, not Kafka's committed offsets, says where
 * each partition resumes; {@link io.docstore.service.kafka.LogMessages} turns a record into an
 * update or a dead letter (docs/formats/kafka-messages.md), and {@link
 * io.docstore.service.kafka.PartitionProgress} holds each partition's position, lag and dead
 * letters for {@code /stats}, {@code /metrics} and {@code /readyz}. With a shard map the partitions
 * follow it (docs/kafka.md, "Moving a partition"), and {@link
 * io.docstore.service.kafka.PartitionDrops} deletes those it took away after the drop delay. {@link
 * io.docstore.service.kafka.TopicSettings} checks at start that the topic keeps every document, and
 * {@link io.docstore.service.kafka.FetchWatch} tells a quiet topic from a silent broker.
 */
package io.docstore.service.kafka;
