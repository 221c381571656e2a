/**
 * Read replicas: {@link io.docstore.service.replica.ReplicaNode} composes a puller that copies a
 * primary's queue with the real {@code rsync} binary ({@link
 * io.docstore.service.replica.RsyncPuller}), the pull loop that runs it every interval ({@link
 * io.docstore.service.replica.PullLoop}, which logs a run of failed pulls through {@link
 * io.docstore.service.replica.PullFailureLog}: once, then a summary every 30 s), an ingester that
 * follows the copy ({@link io.docstore.queue.follow.QueueFollower}) into the replica's own LSM
 * index, recovers in place from index failures and re-syncs when the primary's history diverged
 * from what it ingested ({@link io.docstore.service.replica.ReplicaIngester}), the persisted
 * ingestion point ({@link io.docstore.service.replica.ReplicaCheckpoint}), how current the replica
 * is known to be, its lag in seconds and its readiness ({@link
 * io.docstore.service.replica.Freshness}: ready while the lag is within {@code
 * replica.max-staleness}), its meters ({@link io.docstore.service.replica.ReplicaMeters}) and the
 * replica's {@code DocumentSource} for the read APIs; {@link
 * io.docstore.service.replica.ReplicaServer} serves it, configured by the {@code replica} section
 * ({@link io.docstore.service.replica.ReplicaConfig}).
 *
 * <p>A replica never accepts writes and never writes a segment byte itself: segment files are
 * rsync's (whole files renamed in), everything it derives (index, point) lives outside the copied
 * directory.
 */
package io.docstore.service.replica;
