package io.docstore.service.store;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The store's meters (names as exported to Prometheus: dots become underscores, counters get {@code
 * _total}). Listed in {@code docs/metrics.md}. Thread-safe (Micrometer meters are).
 */
public final class StoreMetrics {

  final Counter puts;
  final Counter deletes;
  // The read counters run once per document read (50 times for a multi-get of 50): a LongAdder
  // each, exported as a function counter (a Micrometer Counter adds to a DoubleAdder).
  private final LongAdder cacheHits = new LongAdder();
  private final LongAdder diskReads = new LongAdder();
  private final LongAdder absent = new LongAdder();
  final Counter expired;
  final Counter corruption;
  final Timer ackLatency;
  final Timer acceptedToReadable;
  final Timer discoveredToReadable;
  final Timer checkpoint;
  final Counter recoveredRecords;

  public StoreMetrics(MeterRegistry registry) {
    puts =
        Counter.builder("docstore.writes")
            .tag("op", "put")
            .description("documents written")
            .register(registry);
    deletes =
        Counter.builder("docstore.writes")
            .tag("op", "delete")
            .description("documents deleted")
            .register(registry);
    reads(registry, "cache", "lookups answered by the cache", cacheHits);
    reads(registry, "disk", "lookups answered by index + queue", diskReads);
    reads(registry, "absent", "lookups of absent or deleted IDs", absent);
    expired =
        Counter.builder("docstore.reads.expired")
            .description(
                "lookups that found a version past its expiry and answered absent (counted also as"
                    + " cache or disk reads)")
            .register(registry);
    corruption =
        Counter.builder("docstore.corruption")
            .description("records whose ID or operation did not match the index (served as errors)")
            .register(registry);
    ackLatency =
        freshness(
            registry, "docstore.write.ack", "append to acknowledgement (durable and readable)");
    acceptedToReadable =
        freshness(
            registry,
            "docstore.freshness.accepted.to.readable",
            "time from a record's acceptance to it being readable here");
    discoveredToReadable =
        freshness(
            registry,
            "docstore.freshness.discovered.to.readable",
            "time from the document's discovered_at to it being readable here");
    checkpoint =
        Timer.builder("docstore.index.checkpoint")
            .description("index sync + checkpoint publication")
            .register(registry);
    recoveredRecords =
        Counter.builder("docstore.index.recovered.records")
            .description("queue records re-indexed at open")
            .register(registry);
  }

  private static void reads(
      MeterRegistry registry, String source, String description, LongAdder count) {
    FunctionCounter.builder("docstore.reads", count, LongAdder::sum)
        .tag("source", source)
        .description(description)
        .register(registry);
  }

  private static Timer freshness(MeterRegistry registry, String name, String description) {
    return Timer.builder(name)
        .description(description)
        .publishPercentiles(0.5, 0.99, 0.999)
        .publishPercentileHistogram()
        .minimumExpectedValue(Duration.ofMillis(1))
        .maximumExpectedValue(Duration.ofMinutes(10))
        .register(registry);
  }

  public void cacheHit() {
    cacheHits.increment();
  }

  public void diskRead() {
    diskReads.increment();
  }

  public void absent() {
    absent.increment();
  }

  public void expired() {
    expired.increment();
  }

  public void corruption() {
    corruption.increment();
  }

  /**
   * One acknowledged batch of {@code puts} puts and {@code deletes} deletes that took {@code
   * nanos}.
   */
  public void written(int puts, int deletes, long nanos) {
    this.puts.increment(puts);
    this.deletes.increment(deletes);
    ackLatency.record(nanos, TimeUnit.NANOSECONDS);
  }

  public void checkpointed(long nanos) {
    checkpoint.record(nanos, TimeUnit.NANOSECONDS);
  }

  void recordAcceptedToReadable(long millis) {
    acceptedToReadable.record(Math.max(0, millis), TimeUnit.MILLISECONDS);
  }

  public void recordDiscoveredToReadable(long millis) {
    discoveredToReadable.record(Math.max(0, millis), TimeUnit.MILLISECONDS);
  }
}
