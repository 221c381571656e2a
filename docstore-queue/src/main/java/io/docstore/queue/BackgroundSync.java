package io.docstore.queue;

import io.docstore.io.GroupCommit;
import java.io.IOException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writer's background fsync every {@code bytesPerSync} bytes written (options {@code
 * bytes-per-sync}): it spreads the disk writes of a long run of appends (a bulk load) and promises
 * nothing. At most one fsync in flight; a failure is the group commit's to report (sticky there).
 * Not thread-safe: the writer's, under its lock.
 */
final class BackgroundSync {

  private static final Logger LOG = LoggerFactory.getLogger(BackgroundSync.class);

  private final long bytesPerSync;
  private final ExecutorService thread;
  private Future<?> inFlight;
  private long unsynced;

  /** {@code bytesPerSync} > 0. */
  BackgroundSync(long bytesPerSync) {
    this.bytesPerSync = bytesPerSync;
    this.thread =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "queue-writeback");
              t.setDaemon(true);
              return t;
            });
  }

  /** After a write of {@code bytes}: starts an fsync through {@code commit} every bytesPerSync. */
  void wrote(long bytes, GroupCommit commit) {
    unsynced += bytes;
    if (unsynced < bytesPerSync || (inFlight != null && !inFlight.isDone())) {
      return;
    }
    unsynced = 0;
    inFlight =
        thread.submit(
            () -> {
              try {
                commit.syncNow();
              } catch (IOException | RuntimeException e) {
                // Sticky in the group commit: the next wait for durability reports it.
                LOG.warn("background fsync of the queue failed: {}", e.toString());
              }
            });
  }

  /**
   * Stops, waiting for an fsync in flight to end, never interrupting it: an interrupt during a
   * force would close the segment's channel, and the queue closes the files next. Keeps an
   * interrupt.
   */
  void close() {
    thread.shutdown();
    if (inFlight == null) {
      return;
    }
    boolean interrupted = false;
    while (true) {
      try {
        inFlight.get();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      } catch (ExecutionException e) {
        break;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
