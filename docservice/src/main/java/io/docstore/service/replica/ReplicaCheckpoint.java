package io.docstore.service.replica;

import io.docstore.index.LsmIndex;
import io.docstore.io.FileSystem;
import io.docstore.queue.follow.FollowPoint;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The replica's persisted ingestion point, {@code replica.point} (docs/formats/replica-point.md):
 * where ingestion resumes after a restart, and where a rewind after an index failure goes back to.
 * Owns the file and the checkpoint interval; whether the follower's point may be persisted at all
 * is {@link ReplicaIngester#checkpoint}'s call.
 *
 * <p>Durability of the derived state, as on the primary: the index runs without its own fsync;
 * {@link #publish} is given a point P before which every record was put into the index, syncs the
 * index, then publishes P atomically. After a crash ingestion resumes at P and re-puts the records
 * after it, in order, which yields the same index.
 *
 * <p>Thread-safety: {@link #due} and {@link #publish} from the ingest thread (or from close, once
 * it stopped); {@link #point} from any thread.
 */
final class ReplicaCheckpoint {

  private final FileSystem fs;
  private final Path file;
  private final long intervalNanos;
  private volatile FollowPoint point;
  private long lastNanos = System.nanoTime();

  /** Reads the persisted point ({@link FollowPoint#START} while there is none). */
  ReplicaCheckpoint(FileSystem fs, Path file, Duration interval) throws IOException {
    this.fs = fs;
    this.file = file;
    this.intervalNanos = interval.toNanos();
    this.point = FollowPoint.read(fs, file);
  }

  /** The last persisted point: every record before it is in the synced index. */
  FollowPoint point() {
    return point;
  }

  /**
   * Persists {@link FollowPoint#START}: after a divergence, once the index was dropped, so that a
   * restart ingests from the start too.
   */
  void reset() throws IOException {
    lastNanos = System.nanoTime();
    FollowPoint.START.publish(fs, file, System.currentTimeMillis());
    point = FollowPoint.START;
  }

  /**
   * Whether a checkpoint interval has passed since the last {@link #publish} (or since the start).
   */
  boolean due() {
    return System.nanoTime() - lastNanos >= intervalNanos;
  }

  /**
   * Syncs {@code index} and persists {@code p}, unless {@code p} is the point already persisted;
   * either way the next checkpoint is due an interval from now.
   *
   * @param p a point before which every record was put into {@code index}
   */
  void publish(FollowPoint p, LsmIndex index) throws IOException {
    lastNanos = System.nanoTime();
    if (p.equals(point)) {
      return;
    }
    index.sync();
    p.publish(fs, file, System.currentTimeMillis());
    point = p;
  }
}
