package io.docstore.service.kafka;

import com.google.common.util.concurrent.Uninterruptibles;
import io.docstore.client.ShardMap;
import io.docstore.io.ParallelChunks;
import io.docstore.service.DocStore;
import io.docstore.service.cluster.ClusterView;
import io.docstore.service.config.ConfigError;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
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
 * the queue with the documents. The work is pipelined over four threads: the consumer's thread
 * polls (Kafka parses the records there), {@value #PREPARE_THREAD} decodes and prepares a poll's
 * runs ({@link DocStore#prepareFromLog}: checks, projections, compression; on helpers too, {@value
 * #DECODE_THREAD}-N and the queue's), {@value #APPLY_THREAD} appends them ({@link
 * DocStore#appendFromLog}) and {@value #COMMIT_THREAD} waits until they are durable and indexed
 * ({@link DocStore#completeFromLog}) and records the progress: so a poll is parsed while the one
 * before it is prepared, that one's predecessor appended, and older ones fsynced. At most {@value
 * #POLLS_IN_FLIGHT} polls are being prepared or appended and {@value #COMMITS_IN_FLIGHT} wait for
 * their fsync; polls are appended in order by one thread; nothing is appended after a failure until
 * the pipeline is empty, no run of a partition after a run of it the store refused, and no run
 * after a full disk discarded records of a run not yet known durable; the consumer seeks back only
 * once nothing is in flight. Where a partition resumes is always {@link DocStore#logPosition}: at
 * start, and after a failed append (the consumer seeks back there, so a batch the store did not
 * make durable is read and applied again, and one it did is not). A record that breaks the message
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

  static final String APPLY_THREAD = "docstore-kafka-apply";

  static final String DECODE_THREAD = "docstore-kafka-decode";

  static final String COMMIT_THREAD = "docstore-kafka-commit";

  static final String PREPARE_THREAD = "docstore-kafka-prepare";

  private static final Logger log = LoggerFactory.getLogger(KafkaIngest.class);

  /** How long start-up waits for the broker's answers (metadata, offsets). */
  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(30);

  private static final Duration POLL = Duration.ofMillis(100);
  private static final long MAX_BACKOFF_MILLIS = 5_000;

  private final KafkaOptions options;
  private final DocStore store;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final LogMessages messages;

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

  /** Decodes and prepares polls, one at a time ({@value #PREPARE_THREAD}). */
  private final ExecutorService preparer = singleThread(PREPARE_THREAD);

  /** Appends prepared polls, one at a time ({@value #APPLY_THREAD}). */
  private final ExecutorService applier = singleThread(APPLY_THREAD);

  /**
   * Waits until appended polls are durable and readable, one at a time ({@value #COMMIT_THREAD}).
   */
  private final ExecutorService committer = singleThread(COMMIT_THREAD);

  /**
   * Decodes a poll's messages (key, JSON check, projections) on the ingest thread and helpers, a
   * chunk of messages at a time.
   */
  private final ParallelChunks decoding =
      new ParallelChunks(DECODE_THREAD, ParallelChunks.helpersForCores(), 128, 64);

  /**
   * The polls handed over, being prepared ({@value #PREPARE_THREAD}) or appended ({@value
   * #APPLY_THREAD}), oldest first, at most {@value #POLLS_IN_FLIGHT}; only the ingest thread
   * touches it.
   */
  private final ArrayDeque<Future<Applied>> inFlight = new ArrayDeque<>();

  /**
   * How many polls may be prepared or appended at once: two, so that the consumer's thread polls
   * (and parses) the next one while the last is prepared and the one before it appended.
   */
  static final int POLLS_IN_FLIGHT = 2;

  /**
   * Partitions the store refused a run of since the pipeline was last empty, with why: none of
   * their later runs is appended, and the ingest thread stops them.
   */
  private final Map<TopicPartition, String> refused = new ConcurrentHashMap<>();

  /**
   * Whether a poll failed (prepare, append, durability) since the pipeline was last empty: nothing
   * more is appended until the ingest thread has emptied it and read again from the store.
   */
  private volatile boolean failed;

  /**
   * The polls appended and being made durable, oldest first, at most {@value #COMMITS_IN_FLIGHT}:
   * added by a poll's append, taken by the ingest thread only once nothing is being appended.
   */
  private final ConcurrentLinkedDeque<Future<Applied>> committing = new ConcurrentLinkedDeque<>();

  /**
   * How many appended polls may wait for their fsync and index at once: two, so that neither the
   * append of the next poll nor the consumer waits for a slow fsync.
   */
  static final int COMMITS_IN_FLIGHT = 2;

  /**
   * The run appended last since nothing was in flight, or null: where the next append's check for
   * records lost to a full disk starts ({@link DocStore#appendFromLog}); reset only when nothing is
   * in flight, so that no run is appended after an earlier one lost records. Touched by the append
   * under way, or by the ingest thread when nothing is in flight.
   */
  private volatile DocStore.AppendedRun chain;

  private long backoffMillis;
  private final IngestLog logs = new IngestLog();

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
    this.drops = new PartitionDrops(store, dropDelay.toNanos(), logs::failure);
    this.messages = new LogMessages(maxBodyBytes, store.groups());
    List<Integer> served =
        cluster == null ? options.partitions() : cluster.map().shard(cluster.shard()).partitions();
    for (int p : options.partitions()) {
      PartitionProgress pp = new PartitionProgress(p, options.topic(), registry);
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
    } catch (KafkaException e) { // e.g. "Invalid url in bootstrap.servers"
      throw new ConfigError(
          "docstore.updates.kafka.bootstrap-servers",
          "'" + options.bootstrapServers() + "': " + e.getMessage());
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
    return ingest;
  }

  private static ExecutorService singleThread(String name) {
    return Executors.newSingleThreadExecutor(
        r -> {
          Thread t = new Thread(r, name);
          t.setDaemon(true);
          return t;
        });
  }

  private static Map<String, Object> consumerConfig(KafkaOptions o) {
    Map<String, Object> c = new HashMap<>();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, o.bootstrapServers());
    c.put(ConsumerConfig.CLIENT_ID_CONFIG, "docstore-" + o.topic());
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
            rewind |= !drain();
            follow(map);
          }
          if (drops.anyDue()) {
            rewind |= !drain();
            drops.runDue(topicPartitions);
          }
          if (rewind) {
            rewind = !drain(); // nothing in flight once here
            backOff();
            seekToStore();
            rewind = false;
          }
          if (progress.isEmpty()) { // a shard the map gives nothing (being emptied or filled)
            rewind |= !drain();
            closing.await(POLL.toMillis(), TimeUnit.MILLISECONDS);
            continue;
          }
          ConsumerRecords<byte[], byte[]> records = consumer.poll(POLL);
          if (records.isEmpty()) {
            rewind = !drain(); // nothing came for a while: no wait, and failures are seen now
          } else if (records.count() < HAND_OVER_FROM && inFlight.isEmpty() && idle()) {
            // A trickle (caught up): prepared, appended and awaited here, without a thread's
            // wake-up on the way to readable; nothing is in flight, so the order is the same.
            if (!drain()) {
              rewind = true;
              continue;
            }
            Appends a = append(prepareAll(records));
            Applied done = complete(a.pending());
            rewind = !drain() || !a.ok() || !done.ok();
          } else {
            Future<List<Run>> prepared = preparer.submit(() -> prepareAll(records));
            inFlight.add(applier.submit(() -> appendAndHandOver(prepared)));
            while (inFlight.size() > POLLS_IN_FLIGHT) {
              if (!finishOldest()) {
                rewind = true;
              }
            }
            if (rewind) {
              continue;
            }
          }
          backoffMillis = 0;
          updateEnds();
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
      drain(); // the append under way ends first
      preparer.shutdown();
      applier.shutdown();
      committer.shutdown();
      decoding.close();
      consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
    }
  }

  /**
   * A poll of fewer messages is prepared and appended on the consumer's thread when nothing is in
   * flight: the hand-overs pay off for a backlog, not for the few messages a caught-up shard polls.
   */
  static final int HAND_OVER_FROM = 256;

  /**
   * Whether every poll appended is durable already: a caught-up shard's. A small poll while one is
   * still being made durable is a backlog's remainder (a fetch cut at {@code poll-records}), handed
   * over too, so that it does not wait for that fsync.
   */
  private boolean idle() {
    // done: so are the others (one thread, in order)
    Future<Applied> newest = committing.peekLast();
    return newest == null || newest.isDone();
  }

  /** One poll's messages of one partition, prepared for the store. */
  private record Run(
      TopicPartition tp,
      PartitionProgress pp,
      DocStore.LogRun run,
      long firstOffset,
      ConsumerRecord<byte[], byte[]> last,
      List<ConsumerRecord<byte[], byte[]>> dead,
      List<LogMessages.Decoded> why) {}

  /** What appending a poll's runs came to: whether all were durable, and partitions to stop. */
  private record Applied(boolean ok) {}

  /**
   * Decodes a poll's records and prepares their runs, one per partition, but for partitions the
   * store refused (stopped, or to be stopped: their messages are never appended past a refused
   * run).
   */
  private List<Run> prepareAll(ConsumerRecords<byte[], byte[]> records) throws IOException {
    List<Run> runs = new ArrayList<>();
    for (TopicPartition tp : records.partitions()) {
      if (!refused.containsKey(tp)) {
        Run run = prepare(tp, records.records(tp));
        if (run != null) {
          runs.add(run);
        }
      }
    }
    return runs;
  }

  /**
   * Decodes one poll's records of one partition and prepares their run; null when the store refuses
   * it (the partition is to be stopped).
   */
  private Run prepare(TopicPartition tp, List<ConsumerRecord<byte[], byte[]>> records)
      throws IOException {
    PartitionProgress pp = progress.get(tp.partition());
    List<DocStore.LoggedUpdate> updates = new ArrayList<>(records.size());
    List<ConsumerRecord<byte[], byte[]>> dead = new ArrayList<>();
    List<LogMessages.Decoded> why = new ArrayList<>();
    LogMessages.Decoded[] decoded = new LogMessages.Decoded[records.size()];
    decoding.run(decoded.length, i -> decoded[i] = messages.decode(records.get(i)));
    for (int i = 0; i < decoded.length; i++) {
      ConsumerRecord<byte[], byte[]> r = records.get(i);
      LogMessages.Decoded d = decoded[i];
      if (d.update() != null) {
        updates.add(new DocStore.LoggedUpdate(r.offset(), d.update()));
      } else {
        dead.add(r);
        why.add(d);
      }
    }
    ConsumerRecord<byte[], byte[]> last = records.get(records.size() - 1);
    try {
      DocStore.LogRun run = store.prepareFromLog(tp.partition(), last.offset() + 1, updates);
      return new Run(tp, pp, run, records.get(0).offset(), last, dead, why);
    } catch (IllegalArgumentException e) {
      refused.put(tp, refused(records.get(0).offset(), last.offset(), e));
      return null;
    }
  }

  /**
   * Every check the store makes was made on each message; a refusal is a bug, and skipping the
   * batch would lose updates: the partition stops, visibly.
   */
  private static String refused(long first, long last, IllegalArgumentException e) {
    return "the store refused a batch at offsets " + first + ".." + last + ": " + e.getMessage();
  }

  /** What appending a poll's runs came to: whether all were appended, and the runs to complete. */
  private record Appends(boolean ok, List<Pending> pending) {}

  /** A run appended, with what its completion records. */
  private record Pending(Run run, DocStore.AppendedRun appended) {}

  /**
   * Appends a poll's runs in order; stops at the first run the store could not append (the ingest
   * thread seeks back to the store's positions and reads it again).
   */
  private Appends append(List<Run> runs) {
    List<Pending> pending = new ArrayList<>(runs.size());
    for (Run r : runs) {
      if (refused.containsKey(r.tp())) {
        continue; // a run of the partition before it was refused
      }
      try {
        chain = store.appendFromLog(r.run(), chain);
        pending.add(new Pending(r, chain));
      } catch (IOException e) {
        logs.failure(
            "appending partition " + r.tp().partition() + " to the queue failed, retrying", e);
        return new Appends(false, pending);
      } catch (IllegalArgumentException e) {
        refused.put(r.tp(), refused(r.firstOffset(), r.last().offset(), e));
      }
    }
    return new Appends(true, pending);
  }

  /**
   * Waits until appended runs are durable and readable, in order, and records each partition's
   * progress; stops at the first that is not (its records may be lost or not: the ingest thread
   * seeks back to the store's positions, which say).
   */
  private Applied complete(List<Pending> pending) {
    for (Pending p : pending) {
      Run r = p.run();
      try {
        store.completeFromLog(p.appended());
      } catch (IOException e) {
        logs.failure(
            "partition " + r.tp().partition() + "'s appended run is not durable, retrying", e);
        failed = true;
        return new Applied(false);
      }
      for (int i = 0; i < r.dead().size(); i++) {
        r.pp().deadLetter(r.why().get(i).reason());
        logs.deadLetter(r.dead().get(i), r.why().get(i));
      }
      r.pp().applied(r.last().offset() + 1, r.last().timestamp());
    }
    return new Applied(true);
  }

  /**
   * On {@value #APPLY_THREAD}: waits for the poll's runs from {@value #PREPARE_THREAD}, appends
   * them, hands them to {@value #COMMIT_THREAD} and returns, so that the next poll is appended
   * while this one's fsync runs; first waits until fewer than {@value #COMMITS_IN_FLIGHT} polls
   * wait for theirs. Appends nothing once anything failed since the pipeline was last empty (the
   * ingest thread empties it and reads again from the store's positions). Not ok when anything
   * failed.
   */
  private Applied appendAndHandOver(Future<List<Run>> prepared) {
    List<Run> runs;
    try {
      runs = Uninterruptibles.getUninterruptibly(prepared);
    } catch (ExecutionException e) {
      logs.failure("preparing a poll failed, retrying from the queue's positions", e);
      failed = true;
      return new Applied(false);
    }
    if (failed) {
      return new Applied(false);
    }
    Appends a = append(runs);
    boolean ok = a.ok();
    while (committing.size() >= COMMITS_IN_FLIGHT) {
      ok &= result(committing.poll()).ok();
    }
    committing.add(committer.submit(() -> complete(a.pending())));
    if (!ok) {
      failed = true;
    }
    return new Applied(ok);
  }

  /**
   * Waits for the oldest poll in flight (being prepared or appended) and stops the partitions the
   * store refused; false when anything failed. The poll it appended may still be made durable:
   * {@link #drain} waits for that too.
   */
  private boolean finishOldest() {
    Future<Applied> f = inFlight.poll();
    boolean ok = f == null || result(f).ok();
    refused.forEach(
        (tp, why) -> {
          if (!consumer.paused().contains(tp)) {
            stop(tp, why);
          }
        });
    return ok;
  }

  /**
   * Waits until nothing is in flight: every poll handed over is appended and durable and readable
   * (or failed); stops the partitions the store refused; false if anything failed.
   */
  private boolean drain() {
    boolean ok = true;
    while (!inFlight.isEmpty()) {
      ok &= finishOldest();
    }
    for (Future<Applied> f; (f = committing.poll()) != null; ) {
      ok &= result(f).ok();
    }
    finishOldest(); // the refusals of an inline append
    refused.clear(); // stopped: the consumer returns none of their messages any more
    chain = null;
    failed = false;
    return ok;
  }

  private Applied result(Future<Applied> f) {
    try {
      // Uninterruptibly: a position read while an append is under way would be stale.
      return Uninterruptibles.getUninterruptibly(f);
    } catch (ExecutionException e) {
      logs.failure("Kafka ingest failed, retrying from the queue's positions", e);
      failed = true;
      return new Applied(false);
    }
  }

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
        pp = new PartitionProgress(p, options.topic(), registry);
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

  /** The {@code kafka} object of {@code /stats}. */
  public Map<String, Object> stats() {
    long now = System.currentTimeMillis();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("topic", options.topic());
    m.put("bootstrapServers", options.bootstrapServers());
    m.put("maxLag", options.maxLag());
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
