/**
 * The Java client of docstore, usable without the rest of the service: {@link
 * io.docstore.client.DocClient} reads over the binary RPC (persistent connections to the primary
 * and replicas, Boxcar-style slot balancing, one retry elsewhere, reconnection) and writes over the
 * primary's admin HTTP port; {@link io.docstore.client.Document} is what a read returns and {@link
 * io.docstore.client.DocClientException} (with its {@link
 * io.docstore.client.DocClientException.Reason}) what a failure throws. {@link
 * io.docstore.client.DocProducer} writes documents to the Kafka topic that sharded docstores
 * consume, and {@link io.docstore.client.KafkaKeys} owns that topic's record keys and the partition
 * of a document (Kafka's default partitioner, computed without Kafka's classes), in the format of
 * docs/formats/kafka-messages.md. {@link io.docstore.client.ShardedDocClient} reads from shards fed
 * by that topic, each ID from the shard a {@link io.docstore.client.ShardMap} gives its partition
 * (docs/formats/shard-map.md). Reads that wait for a write to be visible (by its version, or by the
 * {@link io.docstore.client.LogPosition} a producer's write landed at) are {@code ReadYourWrites}'s
 * rounds. It owns the public API and the client's connection handling; it depends only on the wire
 * format in {@link io.docstore.client.wire}, Netty, SLF4J and the JDK, plus kafka-clients,
 * optionally, for {@code DocProducer} alone; it must not depend on the store or the server side.
 */
package io.docstore.client;
