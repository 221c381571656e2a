package io.docstore.service.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.client.Document;
import io.docstore.io.CorruptionException;
import io.docstore.io.FileSystem;
import io.docstore.io.TestSupport;
import io.docstore.queue.DocQueue;
import io.docstore.queue.Op;
import io.docstore.queue.QueueOptions;
import io.docstore.queue.format.Address;
import io.docstore.queue.format.BlockFormat;
import io.docstore.queue.format.SegmentFileName;
import io.docstore.queue.replication.ManifestPublisher;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BooleanSupplier;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * A primary queue served by a real rsync daemon (started by scripts/rsync-primary on a free
 * loopback port) and replicas pulling it with the real rsync binary, against a model of every
 * acknowledged write.
 */
class ReplicationTest {

  private static final int BLOCK = 4096;
  private static final int EXPECTED = BlockFormat.HEADER_LENGTH + BLOCK;

  @TempDir Path tmp;

  /** The primary's block header + block size (the replica's usual read size). */
  private int expected = EXPECTED;

  private DocQueue primary;
  private ManifestPublisher publisher;
  private RsyncDaemon daemon;
  private Random rnd;

  /** id → body of the newest acknowledged version, or an empty array once deleted. */
  private final Map<Long, byte[]> model = new HashMap<>();

  private long lastAcked;

  /** The catch-up test runs the primary with the settings recommended for feeding replicas. */
  private static final String CATCH_UP = "anEmptyReplicaCatchesUp";

  private static final int RECOMMENDED_BLOCK = 8192;
  private static final int RECOMMENDED_SEGMENT = 16 << 20;

  @BeforeEach
  void startPrimary(TestInfo test) throws Exception {
    rnd = new Random(TestSupport.seed(getClass().getSimpleName()));
    Path queueDir = tmp.resolve("primary/queue");
    boolean recommended = test.getTestMethod().map(m -> m.getName().equals(CATCH_UP)).orElse(false);
    int block = recommended ? RECOMMENDED_BLOCK : BLOCK;
    expected = BlockFormat.HEADER_LENGTH + block;
    primary =
        DocQueue.open(
            queueDir,
            QueueOptions.builder()
                .blockSize(block)
                .segmentSize(recommended ? RECOMMENDED_SEGMENT : 256 * 1024)
                .build());
    publisher =
        new ManifestPublisher(FileSystem.real(), queueDir, primary::durableSequence, expected, 10);
    daemon = RsyncDaemon.start(queueDir, tmp.resolve("rsyncd"));
  }

  @AfterEach
  void stopPrimary() throws Exception {
    if (daemon != null) {
      daemon.close();
    }
    publisher.close();
    primary.close();
  }

  private ReplicaNode replica(String name, long intervalMillis) throws Exception {
    return replica(name, intervalMillis, 3, ReplicaOptions.DEFAULT_CACHE_BYTES);
  }

  /**
   * {@code rsyncTimeoutSeconds}: a pull is killed after twice this (+5 s), so long copies need
   * more.
   */
  private ReplicaNode replica(
      String name, long intervalMillis, int rsyncTimeoutSeconds, long cacheBytes) throws Exception {
    return ReplicaNode.start(
        ReplicaOptions.builder(daemon.url(), tmp.resolve(name))
            .pullInterval(Duration.ofMillis(intervalMillis))
            .rsyncTimeout(Duration.ofSeconds(rsyncTimeoutSeconds))
            .checkpointInterval(Duration.ofMillis(300))
            .expectedBlockBytes(expected)
            .cacheBytes(cacheBytes)
            .build(),
        new SimpleMeterRegistry());
  }

  /** Writes a batch of puts and deletes, acknowledged together once durable (group commit). */
  private long writeBatch(int n, int idRange, int bodyBytes) throws Exception {
    long last = 0;
    Map<Long, byte[]> batch = new HashMap<>();
    for (int i = 0; i < n; i++) {
      long id = rnd.nextInt(idRange);
      boolean delete = model.containsKey(id) && rnd.nextInt(8) == 0;
      byte[] body = delete ? new byte[0] : randomBody(bodyBytes);
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
    return last;
  }

  private byte[] randomBody(int n) {
    byte[] b = new byte[n / 2 + rnd.nextInt(n)];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) ('a' + rnd.nextInt(12)); // compressible, like JSON
    }
    return b;
  }

  private static void await(String what, long timeoutMillis, BooleanSupplier done)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    while (!done.getAsBoolean()) {
      assertThat(System.nanoTime()).as("timed out waiting for " + what).isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  private void assertMatchesModel(ReplicaNode r) throws Exception {
    for (Map.Entry<Long, byte[]> e : model.entrySet()) {
      Document d = r.get(e.getKey());
      if (e.getValue().length == 0) {
        assertThat(d).as("deleted document %d", e.getKey()).isNull();
      } else {
        assertThat(d).as("document %d", e.getKey()).isNotNull();
        assertThat(d.body()).as("bytes of document %d", e.getKey()).isEqualTo(e.getValue());
      }
    }
  }

  @Test
  void everyAcknowledgedWriteReachesBothReplicasAndARestartedReplicaResumes() throws Exception {
    ReplicaNode a = replica("a", 50);
    ReplicaNode b = replica("b", 50);
    io.docstore.queue.follow.FollowPoint saved = null;
    try {
      for (int round = 0; round < 20 * TestSupport.scale(); round++) {
        writeBatch(200, 2000, 600);
        if (round == 10) {
          // Restart b once it has ingested something (on a busy machine ten quick rounds can be
          // written before its first pull), so that the restart has a point to resume from.
          ReplicaNode started = b;
          await("replica b ingesting", 30_000, () -> started.appliedThrough() > 0);
          b.close();
          saved =
              io.docstore.queue.follow.FollowPoint.read(
                  FileSystem.real(), tmp.resolve("b").resolve(ReplicaNode.POINT_FILE));
          assertThat(saved.ingestedThrough()).isPositive();
          b = replica("b", 50);
        }
      }
      ReplicaNode bb = b;
      await(
          "both replicas at " + lastAcked + ": " + a.stats() + " / " + b.stats(),
          30_000,
          () -> a.appliedThrough() >= lastAcked && bb.appliedThrough() >= lastAcked);
      assertThat(
              Files.list(tmp.resolve("primary/queue"))
                  .filter(p -> p.toString().endsWith(".sealed"))
                  .count())
          .isGreaterThan(2);
      assertMatchesModel(a);
      assertMatchesModel(b);
      assertThat(b.follower().counters().recordsIngested.sum())
          .as("the restarted replica resumed at its point")
          .isEqualTo(lastAcked - saved.ingestedThrough());
      assertThat(a.follower().lastError()).isNull();
      assertThat(a.stats())
          .containsEntry("behindSequences", 0L)
          .containsEntry("checksumFailures", 0L);
    } finally {
      a.close();
      b.close();
    }
  }

  @Test
  void theReplicasDocumentCacheNeverServesAVersionOlderThanTheAppliedOne() throws Exception {
    try (ReplicaNode r = replica("cached", 20)) {
      java.util.concurrent.atomic.AtomicBoolean stop =
          new java.util.concurrent.atomic.AtomicBoolean();
      java.util.concurrent.atomic.AtomicReference<Throwable> readerFailure =
          new java.util.concurrent.atomic.AtomicReference<>();
      // Readers keep the cache full of whatever is current (fills race the ingest path's sets).
      Thread[] readers = new Thread[2];
      for (int t = 0; t < readers.length; t++) {
        readers[t] =
            new Thread(
                () -> {
                  java.util.concurrent.ThreadLocalRandom tr =
                      java.util.concurrent.ThreadLocalRandom.current();
                  try {
                    while (!stop.get()) {
                      long[] ids = {tr.nextInt(200), tr.nextInt(200), tr.nextInt(200)};
                      r.get(ids[0]);
                      r.getAll(ids);
                    }
                  } catch (Throwable e) {
                    readerFailure.set(e);
                  }
                });
        readers[t].start();
      }
      try {
        for (int round = 0; round < 30; round++) {
          long seq = writeBatch(20, 200, 300);
          assertThat(r.awaitSequence(seq, 20_000)).as("replica reaches %d", seq).isTrue();
          assertMatchesModel(r);
          long[] all = model.keySet().stream().mapToLong(Long::longValue).toArray();
          Document[] docs = r.getAll(all);
          for (int i = 0; i < all.length; i++) {
            byte[] want = model.get(all[i]);
            if (want.length == 0) {
              assertThat(docs[i]).as("deleted %d (multi-get)", all[i]).isNull();
            } else {
              assertThat(docs[i]).as("document %d (multi-get)", all[i]).isNotNull();
              assertThat(docs[i].body()).as("bytes of %d (multi-get)", all[i]).isEqualTo(want);
            }
          }
        }
      } finally {
        stop.set(true);
        for (Thread t : readers) {
          t.join();
        }
      }
      assertThat(readerFailure.get()).isNull();
      assertThat(((io.docstore.service.cache.CacheStats) r.stats().get("cache")).hits())
          .as("reads were answered by the cache")
          .isPositive();
    }
  }

  @Test
  void rsyncKilledMidTransferAndDamagedCopiesAreRepairedFromThePrimary() throws Exception {
    for (int i = 0; i < 40; i++) {
      writeBatch(250, 5000, 2000);
    }
    ReplicaNode r = replica("r", 20, 3, 0); // no document cache: reads must reach the damaged block
    try {
      // Kill the first few rsync processes caught running: interrupted transfers leave temp files
      // (ignored, then removed) and never a half-copied segment under a segment name.
      int killed = 0;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (killed < 3 && System.nanoTime() < deadline) {
        ProcessHandle h = r.puller().running();
        if (h != null) {
          h.descendants().forEach(ProcessHandle::destroyForcibly);
          if (h.destroyForcibly()) {
            killed++;
          }
        }
        Thread.sleep(1);
      }
      assertThat(killed).isPositive();
      await("replica at " + lastAcked, 60_000, () -> r.appliedThrough() >= lastAcked);
      assertMatchesModel(r);

      // A bit flipped in a sealed copy: the read fails (never wrong bytes), the copy is re-fetched.
      long victim =
          model.entrySet().stream()
              .filter(e -> e.getValue().length > 0)
              .findFirst()
              .orElseThrow()
              .getKey();
      long address = r.addressOf(victim);
      Path sealed =
          r.follower()
              .directory()
              .resolve(new SegmentFileName(Address.segment(address), true).fileName());
      assertThat(sealed).exists();
      // Same size and mtime afterwards: rsync's quick check would never re-fetch it on its own.
      java.nio.file.attribute.FileTime mtime = Files.getLastModifiedTime(sealed);
      flip(sealed, insideRecord(sealed, address));
      Files.setLastModifiedTime(sealed, mtime);
      try {
        r.get(victim);
        throw new AssertionError("a damaged block was served");
      } catch (CorruptionException expected) {
        // reported; the next rounds delete and re-fetch the copy
      }
      await("re-fetch of " + sealed.getFileName(), 60_000, () -> readable(r, victim));
      assertThat(r.follower().counters().readCorruptions.sum()).isPositive();
      assertThat(r.follower().counters().refetches.sum()).as(r.stats().toString()).isPositive();
      assertThat(r.get(victim).body()).isEqualTo(model.get(victim));

      // The active copy truncated under the replica: detected, re-fetched, and writes go on.
      Path active =
          r.follower()
              .directory()
              .resolve(new SegmentFileName(r.follower().point().segment(), false).fileName());
      if (Files.exists(active) && Files.size(active) > 100) {
        try (RandomAccessFile raf = new RandomAccessFile(active.toFile(), "rw")) {
          raf.setLength(raf.length() / 2);
        }
      }
      writeBatch(300, 5000, 2000);
      await("replica at " + lastAcked, 30_000, () -> r.appliedThrough() >= lastAcked);
      assertMatchesModel(r);
      // The killed transfers' temp files are gone (a pull running now may have one of its own, so
      // wait for a moment between pulls).
      await(
          "no rsync temp files left",
          30_000,
          () -> {
            try (var files = Files.list(r.follower().directory())) {
              return files.noneMatch(p -> p.getFileName().toString().startsWith("."));
            } catch (java.io.IOException e) {
              throw new java.io.UncheckedIOException(e);
            }
          });
    } finally {
      r.close();
    }
  }

  private static boolean readable(ReplicaNode r, long id) {
    try {
      return r.get(id) != null;
    } catch (java.io.IOException | RuntimeException e) {
      return false;
    }
  }

  /**
   * A byte of the record at {@code address} itself: a read checks that record (in a block of
   * records stored one by one, only that record), so damage there must be detected. In any other
   * block, a byte of its payload.
   */
  private static long insideRecord(Path file, long address) throws Exception {
    long block = Address.blockOffset(address);
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
      raf.seek(block + BlockFormat.FLAGS);
      if ((raf.read() & BlockFormat.FLAG_ZSTD_RECORDS) == 0) {
        return block + BlockFormat.HEADER_LENGTH + 3;
      }
      long payload = block + BlockFormat.HEADER_LENGTH;
      raf.seek(
          payload
              + BlockFormat.ZSTD_TABLE
              + (long) Address.index(address) * BlockFormat.OFFSET_ENTRY);
      return payload + raf.readInt() + BlockFormat.RECORD_ID + 3; // inside the record's id
    }
  }

  private static void flip(Path file, long offset) throws Exception {
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.seek(offset);
      int v = raf.read();
      raf.seek(offset);
      raf.write(v ^ 0x40);
    }
  }

  /**
   * Freshness: updates at a steady rate, each timed from the primary's acknowledgement to the first
   * successful read of that version on a replica. Prints p50/p99/max; asserts only that all arrive.
   */
  @Test
  void freshnessFromAcknowledgementToFirstReadOnAReplica() throws Exception {
    int updates = 10_000 * TestSupport.scale();
    int perSecond = 5_000;
    int batch = 50;
    ReplicaNode r = replica("fresh", 200);
    AtomicLongArray ackNanos = new AtomicLongArray(updates);
    AtomicLongArray seqs = new AtomicLongArray(updates);
    Histogram h = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
    Thread reader =
        new Thread(
            () -> {
              try {
                for (int i = 0; i < updates; i++) {
                  while (ackNanos.get(i) == 0) {
                    Thread.sleep(1);
                  }
                  while (true) {
                    Document d = r.get(i);
                    if (d != null && d.sequence() >= seqs.get(i)) {
                      h.recordValue(
                          Math.max(
                              0,
                              TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - ackNanos.get(i))));
                      break;
                    }
                    Thread.sleep(1);
                  }
                }
              } catch (InterruptedException stopped) {
                Thread.currentThread().interrupt();
              } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            },
            "freshness-reader");
    try {
      reader.start();
      long start = System.nanoTime();
      long periodNanos = TimeUnit.SECONDS.toNanos(1) * batch / perSecond;
      for (int i = 0; i < updates; i += batch) {
        long due = start + (i / batch) * periodNanos;
        while (System.nanoTime() < due) {
          Thread.sleep(1);
        }
        long last = 0;
        for (int j = i; j < Math.min(updates, i + batch); j++) {
          last =
              primary
                  .writer()
                  .append(j, Op.PUT, System.currentTimeMillis(), randomBody(1000))
                  .sequence();
          seqs.set(j, last);
        }
        primary.writer().awaitDurable(last);
        long now = System.nanoTime();
        for (int j = i; j < Math.min(updates, i + batch); j++) {
          ackNanos.set(j, now);
        }
      }
      reader.join(TimeUnit.SECONDS.toMillis(60));
      assertThat(reader.isAlive())
          .as("every update arrived on the replica: " + h.getTotalCount() + " did; " + r.stats())
          .isFalse();
      assertThat(h.getTotalCount()).isEqualTo(updates);
      System.out.printf(
          "replica freshness (%d updates of ~1 KB at %d/s, pull interval 200 ms): p50 %.1f ms, p99 %.1f ms,"
              + " max %.1f ms%n",
          updates,
          perSecond,
          h.getValueAtPercentile(50) / 1000.0,
          h.getValueAtPercentile(99) / 1000.0,
          h.getMaxValue() / 1000.0);
    } finally {
      reader.interrupt();
      r.close();
    }
  }

  /**
   * Catch-up: a replica starting from an empty directory against a primary holding documents
   * (20,000 x scale, ~1 KB; scale 50 = 1,000,000) with the recommended primary settings (16 MiB
   * segments, 8 KiB blocks). Prints the rsync copy alone (into a scratch directory), the index
   * build alone (a replica started on a finished copy: verify + index), and the whole catch-up of
   * an empty replica (copy, then verify + index); asserts only that everything arrives.
   */
  @Test
  void anEmptyReplicaCatchesUp() throws Exception {
    int docs = 20_000 * TestSupport.scale();
    long tw = System.nanoTime();
    for (int written = 0; written < docs; written += 500) {
      long last = 0;
      for (int j = written; j < Math.min(docs, written + 500); j++) {
        last =
            primary
                .writer()
                .append(j, Op.PUT, System.currentTimeMillis(), randomBody(1000))
                .sequence();
      }
      primary.writer().awaitDurable(last);
      lastAcked = last;
    }
    long writeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - tw);
    Thread.sleep(100); // let the manifest publisher (10 ms interval) declare the last batch durable
    Path copied = tmp.resolve("copied");
    long t0 = System.nanoTime();
    RsyncPuller.Pull copy =
        new RsyncPuller(FileSystem.real(), "rsync", daemon.url(), copied.resolve("queue"), 30)
            .pull();
    long copyMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    assertThat(copy.ok()).as(copy.output()).isTrue();
    long indexMillis = catchUp("copied", docs);
    long bytes = directorySize(copied.resolve("queue"));
    deleteTree(copied);
    long totalMillis = catchUp("empty", docs);
    System.out.printf(
        "replica catch-up: %d documents (%d MB of segments, written in %d ms): rsync copy alone %d ms,"
            + " index build alone (verify + index of a finished copy) %d ms, empty replica ready (copy + verify + index)"
            + " %d ms%n",
        docs, bytes >> 20, writeMillis, copyMillis, indexMillis, totalMillis);
  }

  /**
   * Starts a replica in {@code tmp/name} and returns the milliseconds until it has every document.
   */
  private long catchUp(String name, int docs) throws Exception {
    long t = System.nanoTime();
    ReplicaNode r = replica(name, 200, 120, ReplicaOptions.DEFAULT_CACHE_BYTES);
    try {
      await("catch-up to " + lastAcked, 600_000, () -> r.appliedThrough() >= lastAcked);
      long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t);
      assertThat(r.get(docs - 1)).isNotNull();
      assertThat(r.get(0)).isNotNull();
      return millis;
    } finally {
      r.close();
    }
  }

  private static void deleteTree(Path dir) throws Exception {
    try (var s = Files.walk(dir)) {
      for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  private static long directorySize(Path dir) throws Exception {
    try (var s = Files.list(dir)) {
      return s.mapToLong(p -> p.toFile().length()).sum();
    }
  }
}
