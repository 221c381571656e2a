package io.docstore.service.kafka;

import io.docstore.client.ShardMap;
import io.docstore.service.DocStore;
import io.docstore.service.cluster.ClusterView;
import io.docstore.service.config.ConfigError;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka mode's updater: one thread ({@value #THREAD}) that owns a {@link KafkaConsumer} assigned
 * the configured partitions of the update topic (no consumer group, nothing committed to Kafka) and
 * appends each partition's messages to the store in offset order, each poll's messages of a
 * partition as one {@link DocStore#applyFromLog} run, which records the partition's next offset in
 * the queue with the documents. This thread polls (Kafka parses the records on it) and hands each
 * poll to an {@link IngestPipeline}, whose threads prepare, append and make it durable while the
 * next is polled; a poll of fewer than {@value #HAND_OVER_FROM} messages while nothing is in flight
 * (a caught-up shard) goes through the same steps on this thread. The consumer seeks back once
 * nothing is in flight. Where a partition resumes is always {@link DocStore#logPosition}: at start,
 * and after a failed append (the consumer seeks back there, so a batch the store did not make
 * durable is read and applied again, and one it did is not). A record that breaks the message
 * format is a dead letter ({@link LogMessages}): counted, logged (rate-limited) and consumed
 * without being applied. While the broker is down the consumer keeps polling and reconnects by
 * itself.
 *
 * <p>With a {@link ClusterView} (the node's {@code cluster.shard} is set), the partitions follow
 * the shard map: a partition the map gives the shard, to serve or to build ({@code +P}), is
 * assigned and consumed from where the store's records of it end (its beginning for a new one); a
 * partition the map takes away stops being consumed at once and, {@code drop-delay} later, its
 * documents are deleted ({@link DocStore#dropLogPartition}) on this thread. A partition the store
 * holds but the map does not give it at start is dropped the same way (a drop cut short by a crash
 * finishes). Only served partitions count for readiness.
 *
 * <p>Thread-safe: {@link #stats}, {@link #notReady} and the meters read what the thread publishes.
 */
public final class KafkaIngest implements Closeable {

  static final String THREAD = "docstore-kafka-ingest";

  private static final Logger log = LoggerFactory.getLogger(KafkaIngest.class);

  /** How long start-up waits for the broker's answers (metadata, offsets). */
  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(30);

  private static final Duration POLL = Duration.ofMillis(100);
  private static final long MAX_BACKOFF_MILLIS = 5_000;

  private final KafkaOptions options;
  private final DocStore store;
  private final KafkaConsumer<byte[], byte[]> consumer;

  /** The partitions consumed now; replaced whole (read by other threads). */
  private volatile Map<Integer, PartitionProgress> progress = new LinkedHashMap<>();

  private final MeterRegistry registry;
  private final ClusterView cluster;

  /** A shard map the ingest thread has not taken yet. */
  private final AtomicReference<ShardMap> newMap = new AtomicReference<>();

  /** Partitions the map took away, deleted after the drop delay. */
  private final PartitionDrops drops;

  /** The topic's partition count. */
  private int topicPartitions;

  private final CountDownLatch closing = new CountDownLatch(1);
  private final Thread thread;

  private final IngestPipeline pipeline;

  private long backoffMillis;

  /**
   * Times the ingest went back to the queue's positions after a failure (a full disk, a failed
   * write): growing while it cannot append, so an operator sees a stalled shard.
   */
  private final Counter retries;

  private final IngestLog logs = new IngestLog();

  /** When the brokers last answered a fetch. */
  private final FetchWatch fetches;

  /** What the check of the topic's settings found ({@link TopicSettings}); null until it ran. */
  private volatile List<String> topicWarnings;

  private KafkaIngest(
      KafkaOptions options,
      DocStore store,
      int maxBodyBytes,
      MeterRegistry registry,
      KafkaConsumer<byte[], byte[]> consumer,
      ClusterView cluster,
      Duration dropDelay) {
    this.options = options;
    this.store = store;
    this.consumer = consumer;
    this.registry = registry;
    this.cluster = cluster;
    this.retries =
        Counter.builder("docstore.kafka.retries")
            .description(
                "times the Kafka ingest went back to the queue's positions after a failure")
            .tag("topic", options.topic())
            .register(registry);
    this.drops = new PartitionDrops(store, dropDelay.toNanos(), logs::failure);
    this.fetches = new FetchWatch(consumer, options.topic(), options.bootstrapServers());
    this.pipeline =
        new IngestPipeline(
            store,
            new LogMessages(maxBodyBytes, store.groups()),
            logs,
            p -> progress.get(p),
            (tp, why) -> {
              if (!consumer.paused().contains(tp)) {
                stop(tp, why);
              }
            });
    List<Integer> served =
        cluster == null ? options.partitions() : cluster.map().shard(cluster.shard()).partitions();
    for (int p : options.partitions()) {
      PartitionProgress pp =
          new PartitionProgress(p, options.topic(), registry, fetches::silentSeconds);
      pp.serving(served.contains(p));
      progress.put(p, pp);
    }
    this.thread = new Thread(this::run, THREAD);
    thread.setDaemon(true);
  }

  /**
   * {@link #start(KafkaOptions, DocStore, int, MeterRegistry, ClusterView, Duration)} without a
   * shard map: the configured partitions for good.
   */
  public static KafkaIngest start(
      KafkaOptions options, DocStore store, int maxBodyBytes, MeterRegistry registry)
      throws IOException {
    return start(options, store, maxBodyBytes, registry, null, Duration.ZERO);
  }

  /**
   * Checks that the topic and every configured partition exist, positions each partition where the
   * store's records of it end (its beginning if the store holds none), and starts the thread.
   *
   * @param maxBodyBytes the store's {@code queue.max-body}: larger values are dead letters
   * @param cluster the shard map whose partitions for this node's shard the ingest follows, or null
   *     to consume {@code options.partitions()} for good
   * @param dropDelay how long after the map takes a partition away its documents are deleted
   * @throws ConfigError naming the unknown topic or partition, the malformed or unreachable
   *     bootstrap servers, or a partition whose end is before the store's position in it
   * @throws IOException when the store cannot tell its positions
   */
  public static KafkaIngest start(
      KafkaOptions options,
      DocStore store,
      int maxBodyBytes,
      MeterRegistry registry,
      ClusterView cluster,
      Duration dropDelay)
      throws IOException {
    KafkaConsumer<byte[], byte[]> consumer;
    try {
      consumer =
          new KafkaConsumer<>(
              consumerConfig(options), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    } catch (KafkaException e) { // "Failed to construct kafka consumer", the reason its cause
      Throwable why = e;
      while (why.getCause() != null) {
        why = why.getCause(); // e.g. "Invalid url in bootstrap.servers", a bad client setting
      }
      boolean servers = String.valueOf(why.getMessage()).contains("bootstrap.servers");
      throw new ConfigError(
          "docstore.updates.kafka." + (servers ? "bootstrap-servers" : "client"),
          (servers ? "'" + options.bootstrapServers() + "': " : "") + why.getMessage());
    }
    KafkaIngest ingest;
    try {
      ingest =
          new KafkaIngest(options, store, maxBodyBytes, registry, consumer, cluster, dropDelay);
      ingest.assignAndSeek();
      ingest.dropWhatIsNotConsumed();
    } catch (IOException | RuntimeException e) {
      consumer.close(CloseOptions.timeout(Duration.ZERO));
      throw e;
    }
    if (cluster != null) {
      cluster.onChange(ingest.newMap::set);
      ingest.newMap.compareAndSet(null, cluster.map()); // a change before the listener was added
    }
    ingest.thread.start();
    Thread check = new Thread(ingest::checkTopic, "docstore-kafka-topic-check");
    check.setDaemon(true);
    check.start(); // off the start: an admin client's round trips
    return ingest;
  }

  private static Map<String, Object> consumerConfig(KafkaOptions o) {
    Map<String, Object> c = new HashMap<>();
    c.put(ConsumerConfig.CLIENT_ID_CONFIG, "docstore-" + o.topic());
    c.putAll(o.client()); // security settings, client.id for quotas, fetch sizes: the user's
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, o.bootstrapServers());
    // Positions come from the queue; Kafka's committed offsets are neither read nor written.
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    // Never jump anywhere by itself: a position out of the partition's range stops the partition.
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, o.pollRecords());
    return c;
  }

  private void assignAndSeek() throws IOException {
    String where = " on " + options.bootstrapServers();
    List<PartitionInfo> infos;
    try {
      infos = consumer.partitionsFor(options.topic(), STARTUP_TIMEOUT);
    } catch (UnknownTopicOrPartitionException e) {
      infos = List.of();
    } catch (org.apache.kafka.common.errors.TimeoutException e) {
      throw new ConfigError(
          "docstore.updates.kafka.bootstrap-servers",
          "no Kafka broker" + where + " answered within " + STARTUP_TIMEOUT.toSeconds() + " s");
    } catch (AuthenticationException e) {
      throw new ConfigError(
          "docstore.updates.kafka.client",
          "the broker" + where + " refused this shard's credentials: " + e.getMessage());
    } catch (AuthorizationException e) {
      throw new ConfigError(
          "docstore.updates.kafka.client",
          "not allowed to read topic '" + options.topic() + "'" + where + ": " + e.getMessage());
    } catch (KafkaException e) {
      throw new ConfigError(
          "docstore.updates.kafka.topic",
          "cannot read topic '" + options.topic() + "'" + where + ": " + e.getMessage());
    }
    if (infos == null || infos.isEmpty()) {
      throw new ConfigError(
          "docstore.updates.kafka.topic", "topic '" + options.topic() + "' does not exist" + where);
    }
    Set<Integer> existing = new TreeSet<>();
    for (PartitionInfo i : infos) {
      existing.add(i.partition());
    }
    topicPartitions = existing.size();
    if (cluster != null && cluster.map().partitions() != topicPartitions) {
      throw new ConfigError(
          "docstore.cluster.shard-map",
          "the map has "
              + cluster.map().partitions()
              + " partitions but topic '"
              + options.topic()
              + "'"
              + where
              + " has "
              + topicPartitions);
    }
    for (int p : options.partitions()) {
      if (!existing.contains(p)) {
        throw new ConfigError(
            "docstore.updates.kafka.partitions",
            "partition "
                + p
                + " is not in topic '"
                + options.topic()
                + "'"
                + where
                + ", which has partitions "
                + existing);
      }
    }
    List<TopicPartition> tps = partitions();
    consumer.assign(tps);
    if (tps.isEmpty()) {
      log.info(
          "Kafka mode: topic '{}' on {}, no partition to consume",
          options.topic(),
          options.bootstrapServers());
      return;
    }
    Map<TopicPartition, Long> ends = consumer.endOffsets(tps, STARTUP_TIMEOUT);
    Map<TopicPartition, Long> stored = new HashMap<>();
    for (TopicPartition tp : tps) {
      long end = ends.get(tp);
      long at = store.logPosition(tp.partition());
      if (at > end) {
        throw new ConfigError(
            "docstore.updates.kafka.topic",
            "partition "
                + tp.partition()
                + " of topic '"
                + options.topic()
                + "' ends at offset "
                + end
                + " but this store has applied it up to offset "
                + at
                + ": the topic is not the one this store was fed from (recreated, or the broker"
                + " lost data); rebuild the shard from the topic into an empty data directory");
      }
      stored.put(tp, at);
    }
    // Every partition is positioned before any position is asked for (which resolves them all).
    seek(stored);
    StringBuilder from = new StringBuilder();
    for (TopicPartition tp : tps) {
      PartitionProgress pp = progress.get(tp.partition());
      boolean beginning = stored.get(tp) < 0;
      pp.position(consumer.position(tp, STARTUP_TIMEOUT));
      pp.end(ends.get(tp));
      from.append(from.length() == 0 ? "" : ", ")
          .append(tp.partition())
          .append(beginning ? " from its beginning (offset " : " at offset ")
          .append(pp.position())
          .append(beginning ? ")" : "")
          .append(" of ")
          .append(ends.get(tp));
    }
    log.info(
        "Kafka mode: updates from topic '{}' on {}, partitions {}: {}",
        options.topic(),
        options.bootstrapServers(),
        options.partitions(),
        from);
  }

  private List<TopicPartition> partitions() {
    List<TopicPartition> tps = new ArrayList<>();
    for (int p : progress.keySet()) {
      tps.add(new TopicPartition(options.topic(), p));
    }
    return tps;
  }

  private void run() {
    boolean rewind = false;
    try {
      while (closing.getCount() > 0) {
        try {
          ShardMap map = newMap.getAndSet(null);
          if (map != null) {
            rewind |= !pipeline.drain();
            follow(map);
          }
          if (drops.anyDue()) {
            rewind |= !pipeline.drain();
            drops.runDue(topicPartitions);
          }
          if (rewind) {
            rewind = !pipeline.drain(); // nothing in flight once here
            backOff();
            seekToStore();
            retries.increment();
            rewind = false;
          }
          if (progress.isEmpty()) { // a shard the map gives nothing (being emptied or filled)
            fetches.nothingAssigned();
            rewind |= !pipeline.drain();
            catchUp(); // nothing to catch up with
            closing.await(POLL.toMillis(), TimeUnit.MILLISECONDS);
            continue;
          }
          ConsumerRecords<byte[], byte[]> records = consumer.poll(POLL);
          fetches.afterPoll();
          if (records.isEmpty()) {
            rewind = !pipeline.drain(); // nothing came for a while: failures are seen now
          } else if (records.count() < HAND_OVER_FROM && pipeline.quiet()) {
            rewind = !pipeline.applyHere(records); // a trickle (caught up)
          } else if (!pipeline.handOver(records)) {
            rewind = true;
            continue;
          }
          backoffMillis = 0;
          updateEnds();
          catchUp();
        } catch (WakeupException e) {
          break; // close()
        } catch (OffsetOutOfRangeException e) {
          for (TopicPartition tp : e.partitions()) {
            stop(
                tp,
                "offset "
                    + e.offsetOutOfRangePartitions().get(tp)
                    + " is out of the partition's range (compacted or deleted past it, or the"
                    + " topic was recreated): rebuild the shard from the topic");
          }
        } catch (IOException | RuntimeException e) {
          logs.failure("Kafka ingest failed, retrying from the queue's positions", e);
          rewind = true;
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    } finally {
      pipeline.close(); // the append under way ends first
      consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
    }
  }

  /**
   * A poll of fewer messages is prepared and appended on the consumer's thread when nothing is in
   * flight: the hand-overs pay off for a backlog, not for the few messages a caught-up shard polls.
   */
  static final int HAND_OVER_FROM = 256;

  /**
   * Takes a new shard map: assigns the partitions it gives this shard (new ones positioned where
   * the store's records of them end), stops consuming those it took away and schedules their drop.
   */
  private void follow(ShardMap map) throws IOException {
    ShardMap.Shard own = map.shard(cluster.shard());
    Map<Integer, PartitionProgress> now = progress;
    Map<Integer, PartitionProgress> next = new LinkedHashMap<>();
    List<Integer> added = new ArrayList<>();
    for (int p : own.consumed()) {
      PartitionProgress pp = now.get(p);
      if (pp == null) {
        pp = new PartitionProgress(p, options.topic(), registry, fetches::silentSeconds);
        added.add(p);
        if (drops.cancel(p)) {
          log.info("partition {} is this shard's again before it was dropped: kept", p);
        }
      }
      pp.serving(own.partitions().contains(p));
      next.put(p, pp);
    }
    for (PartitionProgress pp : now.values()) {
      if (!next.containsKey(pp.partition())) {
        pp.close();
        drops.schedule(pp.partition(), "the shard map no longer gives it to shard " + own.name());
      }
    }
    progress = next;
    consumer.assign(partitions());
    Map<TopicPartition, Long> stored = new HashMap<>();
    for (int p : added) {
      stored.put(new TopicPartition(options.topic(), p), store.logPosition(p));
    }
    seek(stored);
    log.info(
        "Kafka mode: shard {} now serves partitions {} and builds {} (newly consumed: {})",
        own.name(),
        own.partitions(),
        own.building(),
        added);
  }

  /** At start: schedules the drop of each partition the store holds but does not consume. */
  private void dropWhatIsNotConsumed() throws IOException {
    if (cluster == null) {
      return;
    }
    for (int p : store.heldLogPartitions()) {
      if (!progress.containsKey(p)) {
        drops.schedule(p, "the store holds it but the shard map does not give it to this shard");
      }
    }
  }

  /** Stops consuming {@code tp} (its position stays where the store's records end). */
  private void stop(TopicPartition tp, String why) {
    consumer.pause(List.of(tp));
    progress.get(tp.partition()).stop(why);
    log.error(
        "Kafka ingest stopped partition {} of topic '{}': {}", tp.partition(), tp.topic(), why);
  }

  /** Seeks every running partition to where the store's records of it end. */
  private void seekToStore() throws IOException {
    Map<TopicPartition, Long> stored = new HashMap<>();
    for (TopicPartition tp : partitions()) {
      if (!consumer.paused().contains(tp)) {
        stored.put(tp, store.logPosition(tp.partition()));
      }
    }
    seek(stored);
  }

  /** Seeks each partition to its offset, or to its beginning for -1 (nothing in the store). */
  private void seek(Map<TopicPartition, Long> offsets) {
    List<TopicPartition> beginning = new ArrayList<>();
    for (Map.Entry<TopicPartition, Long> e : offsets.entrySet()) {
      if (e.getValue() < 0) {
        beginning.add(e.getKey());
      } else {
        consumer.seek(e.getKey(), e.getValue());
        progress.get(e.getKey().partition()).position(e.getValue());
      }
    }
    if (!beginning.isEmpty()) {
      consumer.seekToBeginning(beginning);
    }
  }

  /**
   * Each partition's end, from the consumer's last fetch (its lag behind the last stable offset).
   */
  private void updateEnds() {
    for (TopicPartition tp : consumer.assignment()) {
      OptionalLong lag = consumer.currentLag(tp);
      if (lag.isPresent()) {
        progress.get(tp.partition()).end(consumer.position(tp) + lag.getAsLong());
      }
    }
  }

  /**
   * Turns the store's LZ4 appends on once the shard is {@code lz4-catch-up-lag} messages behind or
   * more (its partitions together, those being built included), and off again once every partition
   * is within {@code max-lag} of its end and the shard less than {@code lz4-catch-up-lag} behind
   * (docs/kafka.md, "Catching up").
   */
  private void catchUp() {
    if (options.lz4CatchUpLag() == 0) {
      return;
    }
    long behind = 0;
    boolean caughtUp = true;
    for (PartitionProgress p : progress.values()) {
      if (p.stopped() != null) {
        continue;
      }
      long lag = p.lagMessages();
      behind += Math.max(0, lag);
      caughtUp &= lag >= 0 && lag <= options.maxLag();
    }
    boolean on = store.lz4Appends();
    if (!on && behind >= options.lz4CatchUpLag()) {
      store.lz4Appends(true);
      log.info(
          "Kafka mode: {} messages behind: appending LZ4 blocks until caught up"
              + " (updates.kafka.lz4-catch-up-lag = {})",
          behind,
          options.lz4CatchUpLag());
    } else if (on && caughtUp && behind < options.lz4CatchUpLag()) {
      // (the backlog too: with a max-lag above lz4-catch-up-lag it would turn on again at once)
      store.lz4Appends(false);
      log.info(
          "Kafka mode: caught up: records compressed with the queue's dictionary again; the space"
              + " reclamation recompresses the LZ4 blocks");
    }
  }

  /** Waits before a retry: 100 ms, doubling up to 5 s; returns early on close. */
  private void backOff() {
    backoffMillis = Math.min(MAX_BACKOFF_MILLIS, Math.max(100, backoffMillis * 2));
    try {
      closing.await(backoffMillis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (closing.getCount() == 0) {
      throw new WakeupException();
    }
  }

  /**
   * Why {@code /readyz} must answer 503, or null: a partition stopped, or one lags more than {@code
   * max-lag} messages (or its end is not known yet).
   */
  public String notReady() {
    for (PartitionProgress p : progress.values()) {
      if (!p.serving()) {
        continue; // being built: the node serves no document of it yet
      }
      if (p.stopped() != null) {
        return "partition stopped";
      }
      long lag = p.lagMessages();
      if (lag < 0 || lag > options.maxLag()) {
        return "catching up";
      }
    }
    return null;
  }

  /** Checks the topic's settings once, logging and keeping what it finds. */
  private void checkTopic() {
    List<String> warnings = TopicSettings.check(options);
    for (String w : warnings) {
      log.warn("{}", w);
    }
    topicWarnings = warnings;
  }

  /** The {@code kafka} object of {@code /stats}. */
  public Map<String, Object> stats() {
    long now = System.currentTimeMillis();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("topic", options.topic());
    m.put("bootstrapServers", options.bootstrapServers());
    m.put("maxLag", options.maxLag());
    m.put("lz4Appends", store.lz4Appends());
    m.put("retries", (long) retries.count());
    m.put("silentSeconds", fetches.silentSeconds(now));
    List<String> warnings = topicWarnings;
    if (warnings != null) {
      m.put("warnings", warnings); // once the topic's settings were checked
    }
    List<Map<String, Object>> parts = new ArrayList<>();
    for (PartitionProgress p : progress.values()) {
      parts.add(p.stats(now));
    }
    m.put("partitions", parts);
    if (cluster != null) {
      m.put("shard", cluster.shard());
      m.put("dropping", drops.stats(now));
    }
    return m;
  }

  public KafkaOptions options() {
    return options;
  }

  /** Stops the thread (it finishes the append under way) and closes the consumer. */
  @Override
  public void close() {
    closing.countDown();
    consumer.wakeup();
    try {
      thread.join(TimeUnit.SECONDS.toMillis(60));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      log.warn("the Kafka ingest thread did not stop within 60 s");
    }
  }
}
