package io.docstore.service.replica;

import io.docstore.io.NoSpaceException;
import io.micrometer.core.instrument.Timer;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replica's ingest thread and what it does every pull interval: one round (a round that took
 * longer than the interval is followed by the next at once). A round reopens a failed index, puts a
 * batch the index refused last round, runs one rsync pull, one ingestion pass over what the copied
 * manifest declares durable, and a checkpoint when one is due. A failed round is logged and the
 * next one tries again. Owns the thread and the pull figures.
 *
 * <p>Thread-safety: {@link #start} and {@link #stop} from the owner, once each; the figures from
 * any thread.
 */
final class PullLoop {

  private static final Logger LOG = LoggerFactory.getLogger(PullLoop.class);

  private final RsyncPuller puller;
  private final ReplicaIngester ingester;
  private final ReplicaCheckpoint checkpoint;
  private final Timer pullTimer;
  private final String source;
  private final long intervalMillis;

  /**
   * How long {@link #stop} waits for a round: a pull in progress is killed after twice the rsync
   * timeout (+5 s).
   */
  private final long stopMillis;

  private final Thread thread;
  private final Object wake = new Object();
  private volatile boolean closed;
  private volatile long pulls;
  private volatile long pullFailures;
  private volatile String lastPullError;

  /**
   * @param pullTimer records every pull, failed or not
   */
  PullLoop(
      ReplicaOptions options,
      RsyncPuller puller,
      ReplicaIngester ingester,
      ReplicaCheckpoint checkpoint,
      Timer pullTimer) {
    this.puller = puller;
    this.ingester = ingester;
    this.checkpoint = checkpoint;
    this.pullTimer = pullTimer;
    this.source = options.source;
    this.intervalMillis = options.pullInterval.toMillis();
    this.stopMillis = TimeUnit.SECONDS.toMillis(2L * options.rsyncTimeout.toSeconds() + 10);
    this.thread = new Thread(this::run, "replica-ingest");
    this.thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /**
   * Ends the thread after the round in progress, if any, and waits for it (bounded by the rsync
   * timeout).
   */
  void stop() {
    synchronized (wake) {
      closed = true;
      wake.notifyAll();
    }
    try {
      thread.join(stopMillis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void run() {
    while (!closed) {
      long t0 = System.nanoTime();
      try {
        round();
      } catch (IOException | RuntimeException e) {
        if (!NoSpaceException.isNoSpace(
            e)) { // a full index disk is logged by the ingester, rate-limited
          LOG.warn("replica round failed (will retry): {}", e.toString());
        }
      } catch (InterruptedException e) {
        return;
      }
      long sleep = intervalMillis - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      synchronized (wake) {
        if (!closed && sleep > 0) {
          try {
            wake.wait(sleep);
          } catch (InterruptedException e) {
            return;
          }
        }
      }
    }
  }

  private void round() throws IOException, InterruptedException {
    ingester.reopenIfBroken();
    ingester.flush(); // a batch the index refused last round goes first
    RsyncPuller.Pull pull = puller.pull();
    pulls++;
    pullTimer.record(pull.nanos(), TimeUnit.NANOSECONDS);
    if (!pull.ok()) {
      pullFailures++;
      lastPullError = "rsync exit " + pull.exitCode() + ": " + pull.output();
      LOG.warn("pull from {} failed: {}", source, lastPullError);
    } else {
      lastPullError = null;
    }
    ingester.poll();
    if (checkpoint.due()) {
      ingester.checkpoint();
    }
  }

  /** Pulls run so far, failed or not. */
  long pulls() {
    return pulls;
  }

  long pullFailures() {
    return pullFailures;
  }

  /** Why the last pull failed, or null if it succeeded. */
  String lastPullError() {
    return lastPullError;
  }
}
