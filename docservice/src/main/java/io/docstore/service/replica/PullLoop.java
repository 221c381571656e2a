package io.docstore.service.replica;

import io.docstore.io.NoSpaceException;
import io.docstore.queue.follow.QueueFollower;
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
 * next one tries again. Owns the thread and the pull figures, and tells {@link Freshness} what each
 * round achieved. A run of failed pulls is logged by {@link PullFailureLog}: once, then a summary
 * at most every 30 s.
 *
 * <p>Thread-safety: {@link #start} and {@link #stop} from the owner, once each; the figures from
 * any thread.
 */
final class PullLoop {

  private static final Logger LOG = LoggerFactory.getLogger(PullLoop.class);

  private final RsyncPuller puller;
  private final ReplicaIngester ingester;
  private final ReplicaCheckpoint checkpoint;
  private final Freshness freshness;
  private final PullFailureLog failureLog;
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
      Freshness freshness,
      Timer pullTimer) {
    this.puller = puller;
    this.ingester = ingester;
    this.checkpoint = checkpoint;
    this.freshness = freshness;
    this.pullTimer = pullTimer;
    this.source = options.source;
    this.intervalMillis = options.pullInterval.toMillis();
    this.failureLog = new PullFailureLog(source, intervalMillis);
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
    long started = freshness.now();
    RsyncPuller.Pull pull = puller.pull();
    pulls++;
    pullTimer.record(pull.nanos(), TimeUnit.NANOSECONDS);
    if (!pull.ok()) {
      pullFailures++;
      lastPullError =
          "rsync exit " + pull.exitCode() + ": " + pull.output().replaceAll("\\s*\n\\s*", " | ");
      String warning =
          failureLog.failed(
              freshness.now(), lastPullError, ingester.appliedThrough(), freshness.lagMillis());
      if (warning != null) {
        LOG.warn(warning);
      }
    } else {
      lastPullError = null;
      freshness.pulled(started);
      String recovered = failureLog.succeeded(freshness.now());
      if (recovered != null) {
        LOG.info(recovered);
      }
    }
    QueueFollower.Result ingested = ingester.poll();
    if (pull.ok() && ingested.error() == null) {
      // The copied manifest is at least what the primary had published when this pull started.
      freshness.claim(started, ingester.follower().manifest());
    }
    freshness.applied(ingester.appliedThrough());
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
