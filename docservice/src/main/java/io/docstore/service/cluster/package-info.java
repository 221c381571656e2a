/**
 * This node's place in a sharded cluster (docs/formats/shard-map.md, docs/kafka.md): the shard map
 * it serves on {@code GET /cluster} and reads again when its file changes, which documents it does
 * not serve (answered {@code wrong_shard} / 421 so that clients fetch the map again), and, in Kafka
 * mode, which partitions its shard consumes. Owns {@link io.docstore.service.cluster.ClusterView}.
 */
package io.docstore.service.cluster;
