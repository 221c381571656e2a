package io.docstore.service.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.client.Document;
import io.docstore.io.FileSystem;
import io.docstore.io.TestSupport;
import io.docstore.queue.DocQueue;
import io.docstore.queue.Op;
import io.docstore.queue.QueueOptions;
import io.docstore.queue.follow.FollowerCounters;
import io.docstore.queue.format.BlockFormat;
import io.docstore.queue.replication.ManifestPublisher;
import io.docstore.service.testing.TcpProxy;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Network faults between a replica and its primary's rsync daemon: a primary queue with its
 * manifest publisher, a real rsync daemon (scripts/rsync-primary), and a {@link TcpProxy} between
 * it and the replica's rsync that partitions, resets, stalls, delays and throttles the link. Every
 * acknowledged write is kept in a model; every body ever sent for an ID in a history.
 */
class ReplicaNetworkFaultTest {

  private static final int BLOCK = 4096;
  private static final int EXPECTED = BlockFormat.HEADER_LENGTH + BLOCK;
  private static final Duration MAX_STALENESS = Duration.ofSeconds(1);

  @TempDir Path tmp;

  private DocQueue primary;
  private ManifestPublisher publisher;
  private RsyncDaemon daemon;
  private TcpProxy proxy;
  private Random rnd;

  /** id → body of the newest acknowledged version, or an empty array once deleted. */
  private final Map<Long, byte[]> model = new HashMap<>();

  /** id → every body ever sent for it (recorded before the write). */
  private final Map<Long, Set<ByteBuffer>> history = new ConcurrentHashMap<>();

  private volatile long lastAcked;

  @BeforeEach
  void startPrimary() throws Exception {
    rnd = new Random(TestSupport.seed(getClass().getSimpleName()));
    Path queueDir = tmp.resolve("primary/queue");
    primary =
        DocQueue.open(
            queueDir, QueueOptions.builder().blockSize(BLOCK).segmentSize(256 * 1024).build());
    publisher =
        new ManifestPublisher(FileSystem.real(), queueDir, primary::durableSequence, EXPECTED, 10);
    daemon = RsyncDaemon.start(queueDir, tmp.resolve("rsyncd"));
    proxy = new TcpProxy(new InetSocketAddress("127.0.0.1", daemon.port()));
  }

  @AfterEach
  void stopPrimary() throws Exception {
    proxy.close();
    daemon.close();
    publisher.close();
    primary.close();
  }

  private ReplicaNode replica(String name) throws Exception {
    return ReplicaNode.start(
        ReplicaOptions.builder(
                "rsync://127.0.0.1:" + proxy.address().getPort() + "/docstore/", tmp.resolve(name))
            .pullInterval(Duration.ofMillis(50))
            .rsyncTimeout(Duration.ofSeconds(1))
            .checkpointInterval(Duration.ofMillis(300))
            .maxStaleness(MAX_STALENESS)
            .expectedBlockBytes(EXPECTED)
            .cacheBytes(0) // every read goes to the copy
            .build(),
        new SimpleMeterRegistry());
  }

  /** A partition: reads go on from the local copy, the lag grows, then it heals by itself. */
  @Test
  void duringAPartitionTheReplicaServesItsDataGrowsStaleAndAfterwardsCatchesUpByItself()
      throws Exception {
    try (ReplicaNode r = replica("r")) {
      for (int i = 0; i < 10; i++) {
        writeBatch(100, 2000, 600);
      }
      await("caught up and ready: " + r.stats(), 30_000, () -> caughtUp(r) && r.notReady() == null);
      Map<Long, byte[]> before = new HashMap<>(model);
      long applied = r.appliedThrough();

      proxy.cut();
      long partitionMillis = 2500L * TestSupport.scale();
      long end = System.currentTimeMillis() + partitionMillis;
      long lagAtStart = r.lagMillis();
      boolean sawStale = false;
      while (System.currentTimeMillis() < end) {
        writeBatch(20, 2000, 600); // the primary goes on acknowledging writes
        assertMatches(r, before); // the replica serves what it had, byte-exact
        assertThat(r.appliedThrough()).isEqualTo(applied);
        if (r.lagMillis() > MAX_STALENESS.toMillis() + 200) {
          assertThat(r.notReady()).as("lag %d ms", r.lagMillis()).isEqualTo("stale");
          sawStale = true;
        }
        Thread.sleep(50);
      }
      Map<String, Object> during = r.stats();
      assertThat(sawStale).as("not ready once the lag passed the bound: " + during).isTrue();
      assertThat(r.lagMillis())
          .as("the lag grows while the link is down")
          .isGreaterThan(lagAtStart + partitionMillis - 500);
      assertThat((double) during.get("secondsSinceLastSuccessfulPull"))
          .isGreaterThan(partitionMillis / 1000.0 - 0.5);
      assertThat((long) during.get("pullFailures")).isPositive();
      assertThat((long) during.get("primaryDurableSequence")).isGreaterThanOrEqualTo(applied);

      proxy.restore();
      await("caught up after the partition: " + r.stats(), 30_000, () -> caughtUp(r));
      await("ready again: " + r.stats(), 10_000, () -> r.notReady() == null);
      assertThat(r.lagMillis()).isLessThan(MAX_STALENESS.toMillis());
      assertMatches(r, model);
    }
  }

  /**
   * Transfers reset, stalled, cut, delayed and throttled mid-file while the primary writes and
   * readers read: a read never returns bytes that were not written for that ID, no copy under a
   * segment name is ever partial (no checksum failure, gap, shrunk file or chain mismatch), and
   * after the link recovers every acknowledged write reads back byte-exact.
   */
  @Test
  void aTransferCutMidFileNeverLeavesAHalfCopiedBlockIndexed() throws Exception {
    for (int i = 0; i < 12; i++) {
      writeBatch(250, 3000, 2000); // ~3 MB: the first copy takes ~3 s through the throttled link
    }
    proxy.bandwidth(1 << 20);
    ReplicaNode r = replica("r");
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<Throwable> readFailure = new AtomicReference<>();
    AtomicLong reads = new AtomicLong();
    Thread reader = new Thread(() -> readAgainstHistory(r, stop, readFailure, reads), "reader");
    reader.start();
    int midTransfer = 0;
    try {
      long faults = 16L * TestSupport.scale();
      for (int f = 0; f < faults; f++) {
        writeBatch(30, 3000, 2000);
        awaitTransfer(1_000);
        boolean inFlight = proxy.connections() > 0;
        switch (f % 4) {
          case 0 -> proxy.reset();
          case 1 -> {
            proxy.stall(); // rsync's --timeout (1 s) gives up on a link that hangs
            Thread.sleep(1_300);
            proxy.unstall();
          }
          case 2 -> {
            proxy.cut();
            Thread.sleep(300);
            proxy.restore();
          }
          default -> {
            proxy.delay(20);
            Thread.sleep(300);
            proxy.delay(0);
          }
        }
        if (inFlight && f % 4 != 3) {
          midTransfer++;
        }
        Thread.sleep(100);
      }
      proxy.bandwidth(0);
      await("caught up after the faults: " + r.stats(), 30_000, () -> caughtUp(r));
      stop.set(true);
      reader.join();
      assertThat(readFailure.get()).as("reads during the faults").isNull();
      assertThat(reads.get()).isPositive();
      assertThat(midTransfer).as("faults that hit a transfer in flight").isPositive();
      assertThat((long) r.stats().get("pullFailures")).isPositive();
      FollowerCounters c = r.follower().counters();
      assertThat(c.checksumFailures.sum() + c.gaps.sum() + c.shrunkFiles.sum())
          .as("no partial copy under a segment name: " + r.stats())
          .isZero();
      assertThat(c.chainMismatches.sum()).isZero();
      assertMatches(r, model);
      await("ready: " + r.stats(), 10_000, () -> r.notReady() == null);
    } finally {
      stop.set(true);
      reader.join();
      r.close();
    }
    assertThat(
            Files.list(tmp.resolve("r/queue"))
                .filter(p -> p.getFileName().toString().startsWith(".seg-"))
                .count())
        .as("temp files of cut transfers are removed before the next pull")
        .isLessThanOrEqualTo(1); // the last pull's, if it was cut at close
  }

  /** Waits until the proxy carries a transfer (or the timeout passes). */
  private void awaitTransfer(long timeoutMillis) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    while (proxy.connections() == 0 && System.nanoTime() < deadline) {
      Thread.sleep(2);
    }
  }

  private void readAgainstHistory(
      ReplicaNode r, AtomicBoolean stop, AtomicReference<Throwable> failure, AtomicLong reads) {
    Random local = new Random(1);
    try {
      while (!stop.get()) {
        long id = local.nextInt(3000);
        Document d = r.get(id);
        reads.incrementAndGet();
        if (d != null) {
          Set<ByteBuffer> sent = history.get(id);
          if (sent == null || !sent.contains(ByteBuffer.wrap(d.body()))) {
            throw new AssertionError("document " + id + " read bytes never written for it");
          }
        }
      }
    } catch (Throwable e) {
      failure.set(e);
    }
  }

  private boolean caughtUp(ReplicaNode r) {
    return r.appliedThrough() >= lastAcked;
  }

  /** Writes a batch of puts and deletes, acknowledged together once durable (group commit). */
  private void writeBatch(int n, int idRange, int bodyBytes) throws Exception {
    long last = 0;
    Map<Long, byte[]> batch = new HashMap<>();
    for (int i = 0; i < n; i++) {
      long id = rnd.nextInt(idRange);
      boolean delete = model.containsKey(id) && rnd.nextInt(8) == 0;
      byte[] body = delete ? new byte[0] : randomBody(bodyBytes);
      if (!delete) {
        history.computeIfAbsent(id, k -> ConcurrentHashMap.newKeySet()).add(ByteBuffer.wrap(body));
      }
      last =
          primary
              .writer()
              .append(id, delete ? Op.DELETE : Op.PUT, System.currentTimeMillis(), body)
              .sequence();
      batch.put(id, body);
    }
    primary.writer().awaitDurable(last);
    model.putAll(batch);
    lastAcked = last;
  }

  private byte[] randomBody(int n) {
    byte[] b = new byte[n / 2 + rnd.nextInt(n)];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) ('a' + rnd.nextInt(12));
    }
    return b;
  }

  private static void assertMatches(ReplicaNode r, Map<Long, byte[]> expected) throws Exception {
    for (Map.Entry<Long, byte[]> e : expected.entrySet()) {
      Document d = r.get(e.getKey());
      if (e.getValue().length == 0) {
        assertThat(d).as("deleted document %d", e.getKey()).isNull();
      } else {
        assertThat(d).as("document %d", e.getKey()).isNotNull();
        assertThat(d.body()).as("bytes of document %d", e.getKey()).isEqualTo(e.getValue());
      }
    }
  }

  private static void await(String what, long timeoutMillis, BooleanSupplier done)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    while (!done.getAsBoolean()) {
      assertThat(System.nanoTime()).as("timed out waiting for " + what).isLessThan(deadline);
      Thread.sleep(20);
    }
  }
}
