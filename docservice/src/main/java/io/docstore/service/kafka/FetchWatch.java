package io.docstore.service.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When the brokers last answered the consumer's fetches for the topic. A caught-up shard polls and
 * gets nothing both while no message is produced and while its topic is out of reach (brokers down
 * or unreachable, the topic deleted); only the answers to its fetches, which a connected consumer
 * gets at least every {@code fetch.max.wait.ms} (500 ms by default) whether or not messages came,
 * tell the two apart. They are counted by the consumer's own {@code fetch-total} metric; since a
 * broker also answers fetches of a deleted topic (with an error), the topic's metadata is looked up
 * every {@value #TOPIC_CHECK_MILLIS} ms too, and answers do not count while it is gone. Past
 * {@value #SILENT_AFTER_MILLIS} ms without an answer, the shard's freshness is unknown: its lag in
 * seconds is at least the silence ({@link PartitionProgress}), so that lag alerts fire, and the
 * silence is logged once it passes {@value #LOG_AFTER_MILLIS} ms, and again when the answers come
 * back.
 *
 * <p>{@link #afterPoll} runs on the consumer's thread; {@link #silentSeconds} on any.
 */
final class FetchWatch {

  private static final Logger log = LoggerFactory.getLogger(FetchWatch.class);

  /** Silence shorter than this is a slow answer, not a lost broker. */
  static final long SILENT_AFTER_MILLIS = 5_000;

  /** Silence logged past this. */
  static final long LOG_AFTER_MILLIS = 30_000;

  /** How often the topic's metadata is looked up. */
  static final long TOPIC_CHECK_MILLIS = 5_000;

  private final Consumer<?, ?> consumer;
  private final String topic;
  private final String what;
  private long topicCheckedAt = System.currentTimeMillis();
  private boolean topicGone;
  private Metric fetchTotal;
  private double fetches = -1;
  private boolean logged;

  /** When a fetch was last answered (or the watch began), epoch milliseconds. */
  private volatile long heardAtMillis = System.currentTimeMillis();

  /**
   * @param servers the bootstrap servers, for the log lines
   */
  FetchWatch(Consumer<?, ?> consumer, String topic, String servers) {
    this.consumer = consumer;
    this.topic = topic;
    this.what = "topic '" + topic + "' on " + servers;
  }

  /** Notes whether fetches were answered since the last call. */
  void afterPoll() {
    long now = System.currentTimeMillis();
    if (fetchTotal == null) {
      fetchTotal = find(consumer.metrics());
      if (fetchTotal == null) {
        heardAtMillis = now; // a client without the metric: nothing to tell
        return;
      }
    }
    if (now - topicCheckedAt >= TOPIC_CHECK_MILLIS) {
      topicCheckedAt = now;
      topicGone = gone();
    }
    double v = ((Number) fetchTotal.metricValue()).doubleValue();
    if (v != fetches && !topicGone) {
      if (logged) {
        log.info("the brokers of {} answer again after {} s", what, (now - heardAtMillis) / 1000);
        logged = false;
      }
      fetches = v;
      heardAtMillis = now;
    } else if (!logged && now - heardAtMillis > LOG_AFTER_MILLIS) {
      logged = true;
      log.warn(
          "{} for {} s: reads are served from what this shard holds, its lag in seconds grows"
              + " with the silence",
          topicGone
              ? what + " does not exist (deleted?); no answer counts"
              : "no fetch of " + what + " answered (brokers down or unreachable)",
          (now - heardAtMillis) / 1000);
    }
  }

  /**
   * Nothing is assigned, so nothing is fetched: no silence to count, and none to carry over to a
   * partition assigned later.
   */
  void nothingAssigned() {
    heardAtMillis = System.currentTimeMillis();
  }

  /** Whether the brokers say the topic does not exist (not when they do not answer). */
  private boolean gone() {
    try {
      List<PartitionInfo> p = consumer.partitionsFor(topic, Duration.ofSeconds(2));
      return p == null || p.isEmpty();
    } catch (UnknownTopicOrPartitionException e) {
      return true;
    } catch (KafkaException e) { // a timeout among them: the silence tells
      return false;
    }
  }

  /** Seconds since a fetch was last answered, once that is over the grace; else 0. */
  double silentSeconds(long nowMillis) {
    long silent = nowMillis - heardAtMillis;
    return silent > SILENT_AFTER_MILLIS ? silent / 1000.0 : 0;
  }

  /** The consumer's count of answered fetches, over every partition, or null. */
  private static Metric find(Map<MetricName, ? extends Metric> metrics) {
    for (Map.Entry<MetricName, ? extends Metric> e : metrics.entrySet()) {
      MetricName n = e.getKey();
      if (n.name().equals("fetch-total")
          && n.group().endsWith("fetch-manager-metrics")
          && !n.tags().containsKey("topic")) {
        return e.getValue();
      }
    }
    return null;
  }
}
