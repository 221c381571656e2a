package io.docstore.bench.service;

import io.docstore.bench.data.JobDocGenerator;
import io.docstore.client.DocClient;
import io.docstore.client.DocProducer;
import io.docstore.client.Document;
import io.docstore.client.LogPosition;
import io.docstore.client.ShardMap;
import io.docstore.client.ShardedDocClient;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.LongStream;
import org.HdrHistogram.Histogram;

/**
 * The cluster rows of {@code scripts/bench-cluster} ({@code --phase cluster}), against a running
 * sharded docstore ({@code scripts/cluster up}):
 *
 * <pre>
 * ClusterBench NODE_URL BOOTSTRAP TOPIC DOCS WRITES RATE REQUESTS
 * </pre>
 *
 * <ol>
 *   <li>The shard map from {@code NODE_URL}'s {@code GET /cluster} ({@link ShardMap#fetch}); each
 *       shard's first server is taken as its primary and the others as its replicas, the order
 *       {@code scripts/cluster} writes.
 *   <li>DOCS ~1 KB job documents (ids 0 to DOCS-1) produced with {@link DocProducer}, then every
 *       server polled until it holds its shard's share of them.
 *   <li>Produce → readable: WRITES new versions of distinct random ids, one at a time at RATE a
 *       second, timed from just before {@link DocProducer#put}; each server of the id's shard is
 *       polled (a multi-get of the ids it has not shown yet, every {@value #POLL_MS} ms on a
 *       primary and {@value #REPLICA_POLL_MS} ms on a replica, by a {@link DocClient} of that one
 *       server) until it returns the new body, and the time the answer arrived counts. p50 and p99
 *       on the primaries and, separately, on the replicas. The same number of writes of other ids
 *       goes first as a warm-up, not counted.
 *   <li>Multi-get: REQUESTS calls of {@value #BATCH} random ids through a {@link ShardedDocClient}
 *       over the fetched map, one after another from one thread, after {@value #WARMUP} calls of
 *       warm-up; p50 and p99 per call, and any id missing or wrong.
 * </ol>
 *
 * Ends with a {@code result key=value ...} line for the script.
 */
public final class ClusterBench {

  private static final int POLL_MS = 2;

  /**
   * Replicas are polled less often: their target is a second, and polling them every 2 ms for the
   * half second they lag was load (a multi-get of every id still waiting) on the box measured.
   */
  private static final int REPLICA_POLL_MS = 10;

  private static final int BATCH = 50;
  private static final int WARMUP = 2_000;
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private ClusterBench() {}

  /** One write of the latency phase: its new body and when it was sent. */
  private record Write(byte[] body, long sentNanos) {}

  /** The produce → readable latencies (us) on the primaries and on the replicas. */
  private record Freshness(Histogram primary, Histogram replica, int unseen) {}

  public static void main(String[] args) throws Exception {
    if (args.length != 7) {
      System.err.println("usage: ClusterBench NODE_URL BOOTSTRAP TOPIC DOCS WRITES RATE REQUESTS");
      System.exit(2);
    }
    ShardMap map = ShardMap.fetch(URI.create(args[0]), TIMEOUT);
    String bootstrap = args[1];
    String topic = args[2];
    int docs = Integer.parseInt(args[3]);
    int writes = Integer.parseInt(args[4]);
    int rate = Integer.parseInt(args[5]);
    int requests = Integer.parseInt(args[6]);
    if (2 * writes > docs) {
      throw new IllegalArgumentException(
          "WRITES (" + writes + ") above half of DOCS (" + docs + "; the warm-up takes as many)");
    }
    List<List<DocClient>> servers = new ArrayList<>();
    try (DocProducer producer = DocProducer.create(bootstrap, topic)) {
      for (ShardMap.Shard shard : map.shards()) {
        List<DocClient> clients = new ArrayList<>();
        servers.add(clients);
        for (InetSocketAddress a : shard.servers()) {
          clients.add(DocClient.builder().servers(List.of(a)).requestTimeout(TIMEOUT).build());
        }
      }
      load(producer, map, servers, docs);
      // Warm-up: as many writes, not counted, so that every JVM of the cluster has compiled its
      // write and read paths (right after the load, compilers take a third of the box).
      produceToReadable(producer, map, servers, docs, writes, writes, rate, false);
      Freshness f = produceToReadable(producer, map, servers, docs, 0, writes, rate, true);
      Histogram multiget = new Histogram(3);
      long wrong = multiGets(map, docs, requests, multiget);
      System.out.printf(
          Locale.ROOT,
          "result shards=%d docs=%d writes=%d rate=%d primary_p50_ms=%.1f primary_p99_ms=%.1f"
              + " replica_p50_ms=%.1f replica_p99_ms=%.1f unseen=%d multiget_ids=%d"
              + " multiget_requests=%d multiget_p50_us=%d multiget_p99_us=%d wrong=%d%n",
          map.shards().size(),
          docs,
          writes,
          rate,
          f.primary().getValueAtPercentile(50) / 1000.0,
          f.primary().getValueAtPercentile(99) / 1000.0,
          f.replica().getValueAtPercentile(50) / 1000.0,
          f.replica().getValueAtPercentile(99) / 1000.0,
          f.unseen(),
          BATCH,
          requests,
          multiget.getValueAtPercentile(50),
          multiget.getValueAtPercentile(99),
          wrong);
    } finally {
      servers.forEach(clients -> clients.forEach(DocClient::close));
    }
  }

  /** Produces ids 0 to docs-1 and waits until every server holds its shard's share. */
  private static void load(
      DocProducer producer, ShardMap map, List<List<DocClient>> servers, int docs)
      throws Exception {
    long t0 = System.nanoTime();
    List<CompletableFuture<LogPosition>> sent = new ArrayList<>(docs);
    for (long id = 0; id < docs; id++) {
      sent.add(producer.put(id, JobDocGenerator.document(id, 1)));
    }
    CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(10, TimeUnit.MINUTES);
    long produced = System.nanoTime();
    long deadline = produced + TimeUnit.MINUTES.toNanos(10);
    for (int s = 0; s < servers.size(); s++) {
      int shard = s;
      long[] own = LongStream.range(0, docs).filter(id -> map.shardOf(id) == shard).toArray();
      for (DocClient c : servers.get(s)) {
        while (!allFound(c, own)) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException(
                "shard " + map.shards().get(s).name() + " did not show all its documents");
          }
          Thread.sleep(100);
        }
      }
    }
    System.out.printf(
        Locale.ROOT,
        "-- loaded %d documents: produced in %d ms, readable on every server %d ms later%n",
        docs,
        (produced - t0) / 1_000_000,
        (System.nanoTime() - produced) / 1_000_000);
  }

  /** Whether {@code c} finds every one of {@code ids}. */
  private static boolean allFound(DocClient c, long[] ids) {
    for (int from = 0; from < ids.length; from += 1000) {
      Document[] got = c.getAll(Arrays.copyOfRange(ids, from, Math.min(ids.length, from + 1000)));
      if (Arrays.asList(got).contains(null)) {
        return false;
      }
    }
    return true;
  }

  private static Freshness produceToReadable(
      DocProducer producer,
      ShardMap map,
      List<List<DocClient>> servers,
      int docs,
      int from,
      int writes,
      int rate,
      boolean report)
      throws Exception {
    // distinct random ids, so that each write's version is the one a poll waits for; ids[from,
    // from + writes) are this pass's (the same shuffle for every pass)
    SplittableRandom rnd = new SplittableRandom(42);
    long[] ids = LongStream.range(0, docs).toArray();
    for (int i = 0; i < from + writes; i++) {
      int j = i + rnd.nextInt(docs - i);
      long t = ids[i];
      ids[i] = ids[j];
      ids[j] = t;
    }
    Histogram primary = new Histogram(3);
    Histogram replica = new Histogram(3);
    List<List<Map<Long, Write>>> pending = new ArrayList<>();
    List<Thread> pollers = new ArrayList<>();
    AtomicLong stopAt = new AtomicLong(Long.MAX_VALUE); // pollers' deadline, set after the sends
    for (List<DocClient> shard : servers) {
      List<Map<Long, Write>> own = new ArrayList<>();
      pending.add(own);
      for (int k = 0; k < shard.size(); k++) {
        Map<Long, Write> waiting = new ConcurrentHashMap<>();
        own.add(waiting);
        DocClient c = shard.get(k);
        Histogram h = k == 0 ? primary : replica;
        int every = k == 0 ? POLL_MS : REPLICA_POLL_MS;
        Thread t = new Thread(() -> poll(c, waiting, h, stopAt, every), "poll-" + pollers.size());
        t.start();
        pollers.add(t);
      }
    }
    List<CompletableFuture<LogPosition>> sent = new ArrayList<>(writes);
    long start = System.nanoTime();
    for (int i = 0; i < writes; i++) {
      LockSupport.parkNanos(start + i * 1_000_000_000L / rate - System.nanoTime());
      long id = ids[from + i];
      Write w = new Write(JobDocGenerator.document(id, 2), System.nanoTime());
      pending.get(map.shardOf(id)).forEach(waiting -> waiting.put(id, w));
      sent.add(producer.put(id, w.body()));
    }
    stopAt.set(System.nanoTime() + TimeUnit.SECONDS.toNanos(60));
    CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    for (Thread t : pollers) {
      t.join();
    }
    int unseen = pending.stream().flatMap(List::stream).mapToInt(Map::size).sum();
    if (!report) {
      return null;
    }
    System.out.printf(
        Locale.ROOT,
        "-- produce → readable, %d writes at %d/s: primary p50 %.1f ms, p99 %.1f ms; replica p50"
            + " %.1f ms, p99 %.1f ms; never seen: %d%n",
        writes,
        rate,
        primary.getValueAtPercentile(50) / 1000.0,
        primary.getValueAtPercentile(99) / 1000.0,
        replica.getValueAtPercentile(50) / 1000.0,
        replica.getValueAtPercentile(99) / 1000.0,
        unseen);
    return new Freshness(primary, replica, unseen);
  }

  /**
   * Every {@code everyMs} ms, asks {@code c} for the writes still {@code waiting}; records the time
   * from each one's send to the answer that shows its body. Returns once nothing is waiting after
   * the last send, or at {@code stopAt}.
   */
  private static void poll(
      DocClient c, Map<Long, Write> waiting, Histogram latency, AtomicLong stopAt, int everyMs) {
    while (true) {
      long stop = stopAt.get();
      if ((stop != Long.MAX_VALUE && waiting.isEmpty()) || System.nanoTime() > stop) {
        return;
      }
      long[] ids = waiting.keySet().stream().mapToLong(Long::longValue).toArray();
      if (ids.length > 0) {
        Document[] got = c.getAll(ids);
        long now = System.nanoTime();
        for (int i = 0; i < ids.length; i++) {
          Write w = waiting.get(ids[i]);
          if (got[i] != null && Arrays.equals(got[i].body(), w.body())) {
            synchronized (latency) {
              latency.recordValue((now - w.sentNanos()) / 1_000);
            }
            waiting.remove(ids[i]);
          }
        }
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(everyMs));
    }
  }

  /** {@code requests} timed multi-gets of {@value #BATCH} random ids; returns those not found. */
  private static long multiGets(ShardMap map, int docs, int requests, Histogram latency) {
    SplittableRandom rnd = new SplittableRandom(7);
    long wrong = 0;
    long[] ids = new long[BATCH];
    long t0 = 0;
    try (ShardedDocClient client = ShardedDocClient.open(map, b -> b.requestTimeout(TIMEOUT))) {
      for (int r = -WARMUP; r < requests; r++) {
        if (r == 0) {
          t0 = System.nanoTime();
        }
        for (int i = 0; i < BATCH; i++) {
          ids[i] = rnd.nextLong(docs);
        }
        long start = System.nanoTime();
        Document[] got = client.getAll(ids);
        if (r >= 0) {
          latency.recordValue((System.nanoTime() - start) / 1_000);
          for (int i = 0; i < BATCH; i++) {
            if (got[i] == null || got[i].id() != ids[i]) {
              wrong++;
            }
          }
        }
      }
    }
    double secs = (System.nanoTime() - t0) / 1e9;
    System.out.printf(
        Locale.ROOT,
        "-- multi-get of %d random ids over %d shards, one thread, %d calls after %d of warm-up:"
            + " %,.0f calls/s; p50 %d us, p99 %d us, p99.9 %d us; missing or wrong: %d%n",
        BATCH,
        map.shards().size(),
        requests,
        WARMUP,
        requests / secs,
        latency.getValueAtPercentile(50),
        latency.getValueAtPercentile(99),
        latency.getValueAtPercentile(99.9),
        wrong);
    return wrong;
  }
}
