package io.docstore.service.kafka;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How far one partition is applied: the store's position in it (the next offset to consume), the
 * partition's end as last seen by the consumer, the timestamp of the last message applied, the dead
 * letters by reason, and why it stopped if it did. Its meters carry the tag {@code partition}.
 * Written by the ingest thread, read by any (volatile fields, Micrometer counters).
 */
final class PartitionProgress {

  private final int partition;
  private final long startedAtMillis = System.currentTimeMillis();
  private final Map<LogMessages.Reason, Counter> deadLetters =
      new EnumMap<>(LogMessages.Reason.class);

  /** The offset of the next message to apply. */
  private volatile long position;

  /** The partition's end (its last stable offset), -1 until known. */
  private volatile long end = -1;

  /** The record timestamp of the last message applied since start, -1 if none. */
  private volatile long lastAppliedTimestamp = -1;

  /** When the last run was applied (durable and readable), epoch milliseconds; -1 before. */
  private volatile long appliedAtMillis = -1;

  /** Why the partition stopped being consumed, or null. */
  private volatile String stopped;

  /** Whether the node serves the partition's documents (false: it only builds it). */
  private volatile boolean serving = true;

  private final MeterRegistry registry;
  private final java.util.List<io.micrometer.core.instrument.Meter> meters =
      new java.util.ArrayList<>();

  /** How long the brokers have not answered a fetch, past a grace. */
  private final java.util.function.LongToDoubleFunction silentSeconds;

  /**
   * @param silentSeconds the seconds since the brokers last answered a fetch at a given time, 0
   *     within a grace ({@link FetchWatch#silentSeconds})
   */
  PartitionProgress(
      int partition,
      String topic,
      MeterRegistry registry,
      java.util.function.LongToDoubleFunction silentSeconds) {
    this.partition = partition;
    this.registry = registry;
    this.silentSeconds = silentSeconds;
    Tags tags = Tags.of("topic", topic, "partition", Integer.toString(partition));
    for (LogMessages.Reason r : LogMessages.Reason.values()) {
      deadLetters.put(
          r,
          Counter.builder("docstore.kafka.dead.letters")
              .description(
                  "messages of the update topic skipped as dead letters (docs/formats/kafka-"
                      + "messages.md), by reason: key, value, too_large, expiry")
              .tags(tags.and("reason", r.tag))
              .register(registry));
    }
    meters.addAll(deadLetters.values());
    meters.add(
        Gauge.builder("docstore.kafka.position", this, p -> p.position)
            .description(
                "the offset of the next message of the partition to apply (from the queue)")
            .tags(tags)
            .register(registry));
    meters.add(
        Gauge.builder("docstore.kafka.end.offset", this, p -> p.end)
            .description("the partition's end offset as last seen by the consumer (-1 until known)")
            .tags(tags)
            .register(registry));
    meters.add(
        Gauge.builder("docstore.kafka.lag.messages", this, PartitionProgress::lagMessages)
            .description("messages of the partition not yet applied (-1 until its end is known)")
            .tags(tags)
            .register(registry));
    meters.add(
        Gauge.builder("docstore.kafka.lag", this, p -> p.lagSeconds(System.currentTimeMillis()))
            .description(
                "0 when caught up, else now minus the timestamp of the last message applied (minus the"
                    + " start of consumption if none was applied yet); at least the time since the"
                    + " brokers last answered a fetch, once over 5 s")
            .baseUnit("seconds")
            .tags(tags)
            .register(registry));
  }

  int partition() {
    return partition;
  }

  /** Removes the partition's meters: it is no longer consumed here. */
  void close() {
    meters.forEach(registry::remove);
  }

  boolean serving() {
    return serving;
  }

  void serving(boolean v) {
    serving = v;
  }

  long position() {
    return position;
  }

  void position(long next) {
    position = next;
  }

  void end(long offset) {
    end = offset;
  }

  /** Messages up to {@code next} are applied; the last had timestamp {@code timestamp}. */
  void applied(long next, long timestamp) {
    position = next;
    lastAppliedTimestamp = timestamp;
    appliedAtMillis = System.currentTimeMillis();
  }

  void deadLetter(LogMessages.Reason reason) {
    deadLetters.get(reason).increment();
  }

  void stop(String why) {
    stopped = why;
  }

  String stopped() {
    return stopped;
  }

  /** Messages not yet applied; -1 while the end is not known. */
  long lagMessages() {
    long e = end;
    return e < 0 ? -1 : Math.max(0, e - position);
  }

  /**
   * 0 when caught up, else the age of the last message applied (or of the start), in seconds; at
   * least the brokers' silence, which leaves the shard's freshness unknown.
   */
  double lagSeconds(long nowMillis) {
    double silent = silentSeconds.applyAsDouble(nowMillis);
    if (lagMessages() == 0) {
      return silent;
    }
    long t = lastAppliedTimestamp;
    return Math.max(silent, Math.max(0, nowMillis - (t < 0 ? startedAtMillis : t)) / 1000.0);
  }

  Map<String, Object> stats(long nowMillis) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("partition", partition);
    if (!serving) {
      m.put("building", true);
    }
    m.put("position", position);
    m.put("endOffset", end);
    m.put("lagMessages", lagMessages());
    m.put("lagSeconds", lagSeconds(nowMillis));
    m.put("appliedAtMillis", appliedAtMillis);
    Map<String, Long> dead = new LinkedHashMap<>();
    for (Map.Entry<LogMessages.Reason, Counter> e : deadLetters.entrySet()) {
      dead.put(e.getKey().tag, (long) e.getValue().count());
    }
    m.put("deadLetters", dead);
    if (stopped != null) {
      m.put("stopped", stopped);
    }
    return m;
  }
}
