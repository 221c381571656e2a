package io.docstore.service.replica;

import io.docstore.queue.follow.FollowerCounters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.function.ToDoubleFunction;

/**
 * A replica's meters ({@code docstore.replica.*}): the three the pull loop and the ingester record
 * into ({@link #pullTimer}, {@link #lag}, {@link #divergences}), and gauges and counters over their
 * figures and over the current follower's counters ({@link #bind}). Stateless.
 */
final class ReplicaMeters {

  private ReplicaMeters() {}

  /** One rsync pull. */
  static Timer pullTimer(MeterRegistry r) {
    return Timer.builder("docstore.replica.pull").description("one rsync pull").register(r);
  }

  /** Accepted on the primary to indexed on this replica, per record. */
  static DistributionSummary lag(MeterRegistry r) {
    return DistributionSummary.builder("docstore.replica.lag.millis")
        .description("accepted on the primary to indexed on this replica, per record")
        .baseUnit("milliseconds")
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
   * The meters that read the ingester's and the pull loop's figures (held weakly, as Micrometer
   * does).
   */
  static void bind(MeterRegistry r, ReplicaIngester ingester, PullLoop loop) {
    Gauge.builder("docstore.replica.applied.sequence", ingester, ReplicaIngester::appliedThrough)
        .register(r);
    Gauge.builder("docstore.replica.behind.sequences", ingester, ReplicaIngester::sequencesBehind)
        .register(r);
    Gauge.builder("docstore.replica.behind.bytes", ingester, ReplicaIngester::bytesBehind)
        .register(r);
    Gauge.builder("docstore.replica.lag.last.millis", ingester, ReplicaIngester::lastLagMillis)
        .register(r);
    counter(r, ingester, "docstore.replica.checksum.failures", c -> c.checksumFailures.sum());
    counter(r, ingester, "docstore.replica.gaps", c -> c.gaps.sum());
    counter(r, ingester, "docstore.replica.shrunk.files", c -> c.shrunkFiles.sum());
    counter(r, ingester, "docstore.replica.chain.mismatches", c -> c.chainMismatches.sum());
    counter(r, ingester, "docstore.replica.refetches", c -> c.refetches.sum());
    counter(r, ingester, "docstore.replica.read.corruptions", c -> c.readCorruptions.sum());
    counter(r, ingester, "docstore.replica.ingested.bytes", c -> c.bytesIngested.sum());
    FunctionCounter.builder("docstore.replica.pull.failures", loop, PullLoop::pullFailures)
        .register(r);
    Gauge.builder(
            "docstore.replica.ingest.stopped", ingester, i -> i.ingestFailure() == null ? 0 : 1)
        .description(
            "1 while the index refuses a batch (retried every round; a full disk recovers once space is freed)")
        .register(r);
  }

  /** A counter over the current follower's counters (a rewound follower starts its own at 0). */
  private static void counter(
      MeterRegistry r,
      ReplicaIngester ingester,
      String name,
      ToDoubleFunction<FollowerCounters> f) {
    FunctionCounter.builder(name, ingester, i -> f.applyAsDouble(i.follower().counters()))
        .register(r);
  }
}
