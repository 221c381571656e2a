package io.docstore.service.replica;

import io.docstore.queue.replication.ReplicationManifest;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * How current a replica is known to be, and whether that is current enough to be ready
 * (docs/replication.md, "Lag and freshness").
 *
 * <p>A successful pull that started at time {@code t} copied the manifest the primary had published
 * when rsync read it, which is at least what it had published at {@code t}. So once everything that
 * manifest declares durable is applied, the replica holds everything the primary had published at
 * {@code t}: it is <em>current as of</em> {@code t}. The <em>lag</em> is {@code now - currentAsOf}:
 * a fraction of a second while pulls succeed and ingestion keeps up, growing by one second per
 * second while pulls fail (primary or network down) or ingestion stalls (a damaged copy, a full
 * index disk). At start, before any pull, the manifest the replica already holds makes it current
 * as of that manifest's publication time (the primary's clock) once it is applied; a replica that
 * never was current since it started (an empty one, or one still ingesting its copy) counts its lag
 * from its start and is not ready.
 *
 * <p>Times are wall-clock milliseconds of {@code clock}.
 *
 * <p>Thread-safety: {@link #pulled}, {@link #claim} and {@link #applied} from the ingest thread;
 * the figures from any thread.
 */
final class Freshness {

  private final LongSupplier clock;
  private final long maxStalenessMillis;
  private final long startedAt;

  /** Once {@link #claimSequence} is applied, the replica is current as of this; -1: none. */
  private long claimAt = -1;

  private long claimSequence;
  private volatile long currentAsOf = -1;
  private volatile long lastSuccessfulPull = -1;

  /**
   * @param onDisk the manifest the replica's copy already holds (null if none)
   */
  Freshness(LongSupplier clock, Duration maxStaleness, ReplicationManifest onDisk) {
    this.clock = clock;
    this.maxStalenessMillis = maxStaleness.toMillis();
    this.startedAt = clock.getAsLong();
    if (onDisk != null) {
      claim(onDisk.publishedAtMillis(), onDisk);
    }
  }

  long now() {
    return clock.getAsLong();
  }

  /** A pull that started at {@code startedAt} succeeded. */
  void pulled(long startedAt) {
    lastSuccessfulPull = Math.max(lastSuccessfulPull, startedAt);
  }

  /**
   * The primary had published nothing beyond {@code m} at {@code asOf} (null: it had published no
   * manifest). Replaces an earlier claim not yet met.
   */
  void claim(long asOf, ReplicationManifest m) {
    claimAt = asOf;
    claimSequence = m == null ? 0 : m.lastSequence();
  }

  /** After every ingestion pass: everything through {@code appliedThrough} is readable here. */
  void applied(long appliedThrough) {
    if (claimAt >= 0 && appliedThrough >= claimSequence) {
      currentAsOf = Math.max(currentAsOf, claimAt);
      claimAt = -1;
    }
  }

  /** The wall-clock time the replica is known to be current as of, or -1 if never since start. */
  long currentAsOf() {
    return currentAsOf;
  }

  /** {@code now - currentAsOf}, or the time since start if never current since; never negative. */
  long lagMillis() {
    long asOf = currentAsOf;
    return Math.max(0, clock.getAsLong() - (asOf >= 0 ? asOf : startedAt));
  }

  /** The time since the start of the last successful pull, or since start if none succeeded. */
  long sinceLastSuccessfulPullMillis() {
    long t = lastSuccessfulPull;
    return Math.max(0, clock.getAsLong() - (t >= 0 ? t : startedAt));
  }

  long maxStalenessMillis() {
    return maxStalenessMillis;
  }

  /**
   * Null when ready (current, with a lag within the bound); else {@code "catching up"} (never
   * current since start) or {@code "stale"} (lag above the bound).
   */
  String notReady() {
    if (currentAsOf < 0) {
      return "catching up";
    }
    return lagMillis() > maxStalenessMillis ? "stale" : null;
  }
}
