/**
 * The read-only follower of a queue directory that something else (rsync) fills: it verifies every
 * block it ingests, never goes past what the copied replication manifest declares durable, hands
 * records on strictly in sequence order, serves reads by address from the copies it verified, and
 * turns damage (checksum failures, gaps, files that shrank) into counted errors and a re-fetch of
 * the file rather than wrong data, and reports a history that is no longer a prefix of the
 * primary's (a {@link io.docstore.queue.follow.QueueFollower.Divergence}) for its caller to re-sync
 * ({@link io.docstore.queue.follow.HistoryCheck} tells a diverged primary from a damaged copy).
 * Also the format of the persisted ingestion point.
 *
 * <p>Never writes a segment byte: the only file changes it makes are deleting a damaged copy (so
 * the next pull fetches it whole), deleting diverged copies and the copied manifest when its caller
 * re-syncs, and whatever its caller publishes of {@link io.docstore.queue.follow.FollowPoint}.
 * Knows nothing of rsync, indexes or the service.
 */
package io.docstore.queue.follow;
