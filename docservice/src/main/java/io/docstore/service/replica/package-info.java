/**
 * Read replicas: a puller that copies a primary's queue with the real {@code rsync} binary, an
 * ingester that follows the copy ({@link io.docstore.queue.follow.QueueFollower}) into the
 * replica's own LSM index and persists its ingestion point, the replica's {@code DocumentSource}
 * for the read APIs, its lag metrics, and the {@code replica} configuration.
 *
 * <p>A replica never accepts writes and never writes a segment byte itself: segment files are
 * rsync's (whole files renamed in), everything it derives (index, point) lives outside the copied
 * directory.
 */
package io.docstore.service.replica;
