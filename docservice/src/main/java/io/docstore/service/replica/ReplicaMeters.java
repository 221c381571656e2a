package io.docstore.service.replica;

import io.docstore.queue.follow.FollowerCounters;
import io.docstore.queue.replication.ReplicationManifest;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.function.ToDoubleFunction;

/**
 * A replica's meters ({@code docstore.replica.*}, each with a description; Prometheus names in
 * docs/replication.md, "Lag and freshness"): the three the pull loop and the ingester record into
 * ({@link #pullTimer}, {@link #recordLag}, {@link #divergences}), and gauges and counters over
 * their figures, over {@link Freshness} and over the current follower's counters ({@link #bind}).
 * Stateless.
 */
final class ReplicaMeters {

  private ReplicaMeters() {}

  /** One rsync pull. */
  static Timer pullTimer(MeterRegistry r) {
    return Timer.builder("docstore.replica.pull")
        .description("one rsync pull from the primary, failed or not")
        .register(r);
  }

  /** Accepted on the primary to indexed on this replica, per record. */
  static Timer recordLag(MeterRegistry r) {
    return Timer.builder("docstore.replica.record.lag")
        .description(
            "per record: accepted on the primary to indexed on this replica (both machines' clocks);"
                + " records only while records arrive, see docstore_replica_lag_seconds for staleness")
        .publishPercentiles(0.5, 0.99)
        .register(r);
  }

  /** Re-syncs after the replica found its history diverged from the primary's. */
  static Counter divergences(MeterRegistry r) {
    return Counter.builder("docstore.replica.divergences")
        .description(
            "re-syncs after this replica's history was found not to be a prefix of the primary's")
        .register(r);
  }

  /**
   * The meters that read the ingester's, the pull loop's and the freshness figures (held weakly, as
   * Micrometer does).
   */
  static void bind(MeterRegistry r, ReplicaIngester ingester, PullLoop loop, Freshness freshness) {
    Gauge.builder("docstore.replica.lag", freshness, f -> f.lagMillis() / 1000.0)
        .description(
            "now minus the time this replica is known to be current as of (the start of the last"
                + " successful pull whose manifest is fully applied); grows while pulls fail")
        .baseUnit("seconds")
        .register(r);
    Gauge.builder(
            "docstore.replica.last.successful.pull.age",
            freshness,
            f -> f.sinceLastSuccessfulPullMillis() / 1000.0)
        .description("time since the start of the last successful pull (since start if none)")
        .baseUnit("seconds")
        .register(r);
    Gauge.builder("docstore.replica.ready", freshness, f -> f.notReady() == null ? 1 : 0)
        .description(
            "1 while /readyz answers 200: current, with a lag within replica.max-staleness")
        .register(r);
    Gauge.builder("docstore.replica.applied.sequence", ingester, ReplicaIngester::appliedThrough)
        .description("the highest sequence readable here")
        .register(r);
    Gauge.builder(
            "docstore.replica.primary.durable.sequence",
            ingester,
            i -> {
              ReplicationManifest m = i.follower().manifest();
              return m == null ? 0 : m.lastSequence();
            })
        .description("the last sequence the primary declared durable in the last manifest copied")
        .register(r);
    Gauge.builder("docstore.replica.behind.sequences", ingester, ReplicaIngester::sequencesBehind)
        .description(
            "sequences the last manifest copied declares durable and not applied here"
                + " (does not grow while pulls fail)")
        .register(r);
    Gauge.builder("docstore.replica.behind.bytes", ingester, ReplicaIngester::bytesBehind)
        .description(
            "durable bytes of the last manifest's segment not ingested here"
                + " (does not grow while pulls fail)")
        .register(r);
    Gauge.builder("docstore.replica.record.lag.last", ingester, i -> i.lastLagMillis() / 1000.0)
        .description("accepted on the primary to indexed here, for the last record ingested")
        .baseUnit("seconds")
        .register(r);
    FunctionCounter.builder("docstore.replica.pull.failures", loop, PullLoop::pullFailures)
        .description("rsync pulls that failed (primary, daemon or network unreachable, timeout)")
        .register(r);
    counter(
        r,
        ingester,
        "docstore.replica.checksum.failures",
        "copied blocks or headers that failed their checksum (copy deleted for re-fetch)",
        c -> c.checksumFailures.sum());
    FunctionCounter.builder(
            "docstore.replica.reclaim.restarts", ingester, ReplicaIngester::reclaimRestarts)
        .description(
            "times this replica started over because its primary reclaimed a segment it had not"
                + " ingested all of (it was behind; not a divergence: nothing was lost)")
        .register(r);
    counter(
        r,
        ingester,
        "docstore.replica.gaps",
        "gaps in sequences found in a copy (copy deleted for re-fetch)",
        c -> c.gaps.sum());
    counter(
        r,
        ingester,
        "docstore.replica.shrunk.files",
        "copies found shorter than what was ingested from them (deleted for re-fetch)",
        c -> c.shrunkFiles.sum());
    counter(
        r,
        ingester,
        "docstore.replica.chain.mismatches",
        "copies whose block chain did not match the manifest's (deleted for re-fetch)",
        c -> c.chainMismatches.sum());
    counter(
        r,
        ingester,
        "docstore.replica.refetches",
        "copies deleted so that the next pull fetches them whole",
        c -> c.refetches.sum());
    counter(
        r,
        ingester,
        "docstore.replica.read.corruptions",
        "reads that found a damaged block (answered 500 corrupt; the copy is repaired)",
        c -> c.readCorruptions.sum());
    counter(
        r,
        ingester,
        "docstore.replica.ingested.bytes",
        "bytes of verified blocks ingested",
        c -> c.bytesIngested.sum());
    Gauge.builder(
            "docstore.replica.ingest.stopped", ingester, i -> i.ingestFailure() == null ? 0 : 1)
        .description(
            "1 while the index refuses a batch (retried every round; a full disk recovers once space is freed)")
        .register(r);
  }

  /**
   * A counter over the current follower's counters (a rewound follower starts its own at 0), since
   * this process started.
   */
  private static void counter(
      MeterRegistry r,
      ReplicaIngester ingester,
      String name,
      String description,
      ToDoubleFunction<FollowerCounters> f) {
    FunctionCounter.builder(name, ingester, i -> f.applyAsDouble(i.follower().counters()))
        .description(description)
        .register(r);
  }
}
