package io.docstore.service.kafka;

import io.docstore.service.DocStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partitions a shard no longer consumes and will delete ({@link DocStore#dropLogPartition})
 * once their delay has passed, unless the shard map gives them back first. Driven by the ingest
 * thread ({@link #schedule}, {@link #cancel}, {@link #runDue}); {@link #stats} may be read by any.
 */
final class PartitionDrops {

  private static final Logger log = LoggerFactory.getLogger(PartitionDrops.class);

  private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(5);

  private final DocStore store;
  private final long delayNanos;
  private final BiConsumer<String, Exception> failure;

  /** Partition to when its drop is due (System.nanoTime); the ingest thread's. */
  private final Map<Integer, Long> due = new TreeMap<>();

  /** {@link #due} for other threads: partition to the epoch millisecond its drop is due. */
  private volatile Map<Integer, Long> dueMillis = Map.of();

  /**
   * @param failure told of a failed drop (what, why), to log it as the ingest logs its failures
   */
  PartitionDrops(DocStore store, long delayNanos, BiConsumer<String, Exception> failure) {
    this.store = store;
    this.delayNanos = delayNanos;
    this.failure = failure;
  }

  /** The partition's documents are deleted after the delay, unless {@link #cancel}ed first. */
  void schedule(int partition, String why) {
    due.put(partition, System.nanoTime() + delayNanos);
    publish();
    log.info(
        "Kafka mode: partition {} is not consumed any more ({}); its documents are deleted in {} s"
            + " unless the map gives it back first",
        partition,
        why,
        TimeUnit.NANOSECONDS.toSeconds(delayNanos));
  }

  /** Keeps the partition (the map gave it back): true if a drop was scheduled. */
  boolean cancel(int partition) {
    boolean was = due.remove(partition) != null;
    publish();
    return was;
  }

  /** Whether a drop's delay has passed ({@link #runDue} has work). */
  boolean anyDue() {
    long now = System.nanoTime();
    for (long at : due.values()) {
      if (now - at >= 0) {
        return true;
      }
    }
    return false;
  }

  /**
   * Drops each partition whose delay has passed (of a topic of {@code partitions} partitions); a
   * failed drop is tried again 5 s later.
   */
  void runDue(int partitions) {
    for (Map.Entry<Integer, Long> e : new ArrayList<>(due.entrySet())) {
      if (System.nanoTime() - e.getValue() < 0) {
        continue;
      }
      int p = e.getKey();
      long t0 = System.nanoTime();
      try {
        long n =
            store.dropLogPartition(
                p,
                partitions,
                done -> log.info("dropping partition {}: {} documents deleted so far", p, done));
        due.remove(p);
        log.info(
            "Kafka mode: dropped partition {}: {} documents deleted in {} ms",
            p,
            n,
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
      } catch (java.io.IOException | RuntimeException ex) {
        due.put(p, System.nanoTime() + RETRY_NANOS);
        failure.accept("dropping partition " + p + " failed, retrying in 5 s", ex);
      }
      publish();
    }
  }

  private void publish() {
    long nowNanos = System.nanoTime();
    long nowMillis = System.currentTimeMillis();
    Map<Integer, Long> m = new LinkedHashMap<>();
    due.forEach((p, at) -> m.put(p, nowMillis + TimeUnit.NANOSECONDS.toMillis(at - nowNanos)));
    dueMillis = m;
  }

  /** The {@code dropping} list of {@code /stats}: each partition and the seconds left. */
  List<Map<String, Object>> stats(long nowMillis) {
    List<Map<String, Object>> out = new ArrayList<>();
    dueMillis.forEach(
        (p, at) -> {
          Map<String, Object> d = new LinkedHashMap<>();
          d.put("partition", p);
          d.put("dueInSeconds", Math.max(0, at - nowMillis) / 1000.0);
          out.add(d);
        });
    return out;
  }
}
