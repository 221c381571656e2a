package io.docstore.service.kafka;

import com.google.common.util.concurrent.Uninterruptibles;
import io.docstore.io.ParallelChunks;
import io.docstore.service.DocStore;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BiConsumer;
import java.util.function.IntFunction;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;

/**
 * What {@link KafkaIngest} does with a poll's messages, as a pipeline of threads: {@value
 * #PREPARE_THREAD} decodes and checks them and prepares each partition's run ({@link
 * DocStore#prepareFromLog}: projections, record bodies, compression; on helpers too, {@value
 * #DECODE_THREAD}-N and the queue's), {@value #APPLY_THREAD} appends the runs ({@link
 * DocStore#appendFromLog}) and {@value #COMMIT_THREAD} waits until they are durable and indexed
 * ({@link DocStore#completeFromLog}) and records each partition's progress and dead letters. So the
 * consumer's thread parses the next poll while the last one is prepared, the one before it
 * appended, and older ones fsynced. At most {@value #POLLS_IN_FLIGHT} polls are being prepared or
 * appended and {@value #COMMITS_IN_FLIGHT} wait for their fsync.
 *
 * <p>What keeps positions exact (docs/design/sharding.md, invariant 2): runs are appended in poll
 * order by one thread; after a failure nothing is appended until the pipeline is {@link #drain
 * drained}; no run of a partition is appended after a run of it the store refused (the consumer
 * stops the partition); no run is appended after a full disk discarded records of a run not yet
 * known durable ({@link DocStore#appendFromLog}).
 *
 * <p>The consumer's thread calls {@link #handOver}, {@link #applyHere} and {@link #drain}; the
 * refusal callback runs on it.
 */
final class IngestPipeline implements AutoCloseable {

  static final String APPLY_THREAD = "docstore-kafka-apply";

  static final String DECODE_THREAD = "docstore-kafka-decode";

  static final String COMMIT_THREAD = "docstore-kafka-commit";

  static final String PREPARE_THREAD = "docstore-kafka-prepare";

  /** Decodes and prepares polls, one at a time ({@value #PREPARE_THREAD}). */
  private final ExecutorService preparer = singleThread(PREPARE_THREAD);

  /** Appends prepared polls, one at a time ({@value #APPLY_THREAD}). */
  private final ExecutorService applier = singleThread(APPLY_THREAD);

  /**
   * Waits until appended polls are durable and readable, one at a time ({@value #COMMIT_THREAD}).
   */
  private final ExecutorService committer = singleThread(COMMIT_THREAD);

  /**
   * Decodes a poll's messages (key, JSON check, projections) on the preparing thread and helpers, a
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

  private final DocStore store;
  private final LogMessages messages;
  private final IngestLog logs;
  private final IntFunction<PartitionProgress> progress;
  private final BiConsumer<TopicPartition, String> stop;

  /**
   * @param progress the progress of a partition consumed now
   * @param stop stops consuming a partition the store refused a run of, with why (on the consumer's
   *     thread)
   */
  IngestPipeline(
      DocStore store,
      LogMessages messages,
      IngestLog logs,
      IntFunction<PartitionProgress> progress,
      BiConsumer<TopicPartition, String> stop) {
    this.store = store;
    this.messages = messages;
    this.logs = logs;
    this.progress = progress;
    this.stop = stop;
  }

  /**
   * Hands a poll over to the pipeline, then waits while more than {@value #POLLS_IN_FLIGHT} are
   * being prepared or appended; false when a poll it waited for failed.
   */
  boolean handOver(ConsumerRecords<byte[], byte[]> records) {
    Future<List<Run>> prepared = preparer.submit(() -> prepareAll(records));
    inFlight.add(applier.submit(() -> appendAndHandOver(prepared)));
    boolean ok = true;
    while (inFlight.size() > POLLS_IN_FLIGHT) {
      ok &= finishOldest();
    }
    return ok;
  }

  /**
   * Whether nothing is in flight and every poll appended is durable: a caught-up shard's state, in
   * which a small poll is best {@linkplain #applyHere applied here}. A small poll while one is
   * still being made durable is a backlog's remainder (a fetch cut at {@code poll-records}), handed
   * over too, so that it does not wait for that fsync.
   */
  boolean quiet() {
    // done: so are the others (one thread, in order)
    Future<Applied> newest = committing.peekLast();
    return inFlight.isEmpty() && (newest == null || newest.isDone());
  }

  /**
   * Prepares, appends and waits for a poll on the calling thread, without a thread's wake-up on the
   * way to readable, once nothing is in flight (so the order is the same); false if anything
   * failed.
   */
  boolean applyHere(ConsumerRecords<byte[], byte[]> records) throws IOException {
    if (!drain()) {
      return false;
    }
    Appends a = append(prepareAll(records));
    Applied done = complete(a.pending());
    return drain() && a.ok() && done.ok();
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

  /** What a poll came to: whether everything done with it went well. */
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
    PartitionProgress pp = progress.apply(tp.partition());
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
      refused.put(tp, refusal(records.get(0).offset(), last.offset(), e));
      return null;
    }
  }

  /**
   * Every check the store makes was made on each message; a refusal is a bug, and skipping the
   * batch would lose updates: the partition stops, visibly.
   */
  private static String refusal(long first, long last, IllegalArgumentException e) {
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
        refused.put(r.tp(), refusal(r.firstOffset(), r.last().offset(), e));
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
    refused.forEach(stop);
    return ok;
  }

  /**
   * Waits until nothing is in flight: every poll handed over is appended and durable and readable
   * (or failed); stops the partitions the store refused; false if anything failed.
   */
  boolean drain() {
    boolean ok = true;
    while (!inFlight.isEmpty()) {
      ok &= finishOldest();
    }
    for (Future<Applied> f; (f = committing.poll()) != null; ) {
      ok &= result(f).ok();
    }
    refused.forEach(stop); // an inline append's refusals too
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

  /** Drains, then stops the threads. */
  @Override
  public void close() {
    drain();
    preparer.shutdown();
    applier.shutdown();
    committer.shutdown();
    decoding.close();
  }

  private static ExecutorService singleThread(String name) {
    return Executors.newSingleThreadExecutor(
        r -> {
          Thread t = new Thread(r, name);
          t.setDaemon(true);
          return t;
        });
  }
}
