/**
 * What a primary publishes for read replicas: the replication manifest ({@code
 * replication.manifest} in the queue directory: the newest segment, how much of it is durable, and
 * a chained checksum of its blocks up to there), its byte layout, and the publisher thread that
 * keeps it current.
 *
 * <p>Reads the queue's files and its durable sequence; never writes segments. Knows nothing of
 * rsync, replicas or the service.
 */
package io.docstore.queue.replication;
