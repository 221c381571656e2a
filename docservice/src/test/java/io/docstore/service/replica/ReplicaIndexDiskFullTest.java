package io.docstore.service.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.client.Document;
import io.docstore.index.IndexOptions;
import io.docstore.io.FaultInjectingFileSystem;
import io.docstore.io.FileSystem;
import io.docstore.io.SyncPolicy;
import io.docstore.io.TestSupport;
import io.docstore.queue.DocQueue;
import io.docstore.queue.Op;
import io.docstore.queue.QueueOptions;
import io.docstore.queue.format.BlockFormat;
import io.docstore.queue.replication.ManifestPublisher;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Regression: a replica whose index refuses batches (its disk full, then a failed fsync) used to
 * stop ingesting until restarted (an index-out-of-bounds on its batch, then a closed WAL). Now it
 * recovers in place: it catches up by itself once space is back, and after a failed index fsync it
 * reopens its index and resumes from its persisted point. A primary queue served by the real rsync
 * daemon; the replica's index on the fault-injecting seam.
 */
class ReplicaIndexDiskFullTest {

  private static final int BLOCK = 4096;
  private static final int EXPECTED = BlockFormat.HEADER_LENGTH + BLOCK;

  @TempDir Path tmp;
  private final Map<Long, byte[]> model = new HashMap<>();
  private Random rnd;
  private long lastAcked;

  @Test
  void aReplicaRecoversInPlaceFromAFullIndexDiskAndAFailedIndexFsync() throws Exception {
    RsyncDaemon.requireRsync();
    rnd = new Random(TestSupport.seed("ReplicaIndexDiskFullTest"));
    Path queueDir = tmp.resolve("primary/queue");
    FaultInjectingFileSystem seam = new FaultInjectingFileSystem();
    try (DocQueue primary =
            DocQueue.open(
                queueDir, QueueOptions.builder().blockSize(BLOCK).segmentSize(256 * 1024).build());
        ManifestPublisher publisher =
            new ManifestPublisher(
                FileSystem.real(), queueDir, primary::durableSequence, EXPECTED, 10);
        RsyncDaemon daemon = RsyncDaemon.start(queueDir, tmp.resolve("rsyncd"))) {
      IndexOptions index =
          IndexOptions.builder()
              .fileSystem(seam)
              .syncPolicy(SyncPolicy.NONE)
              .memTableBytes(16 * 1024)
              .build();
      ReplicaOptions o =
          ReplicaOptions.builder(daemon.url(), tmp.resolve("r"))
              .pullInterval(Duration.ofMillis(50))
              .rsyncTimeout(Duration.ofSeconds(10))
              .checkpointInterval(Duration.ofMillis(200))
              .expectedBlockBytes(EXPECTED)
              .indexOptions(index)
              .build();
      ReplicaNode r = ReplicaNode.start(o, new SimpleMeterRegistry());
      try {
        writeBatches(primary, 5);
        await("caught up before the fault: " + r.stats(), () -> r.appliedThrough() >= lastAcked);

        seam.setSpaceLimit(16 << 10);
        writeBatches(primary, 10);
        await(
            "the index refuses a batch: " + r.stats(),
            () -> r.stats().get("ingestStopped") != null);
        long stuck = r.appliedThrough();
        assertThat(stuck).as("not caught up while the index disk is full").isLessThan(lastAcked);
        seam.clearSpaceLimit();
        long t0 = System.nanoTime();
        await(
            "caught up after space is freed, without a restart: " + r.stats(),
            () -> r.appliedThrough() >= lastAcked);
        System.out.printf(
            "ReplicaIndexDiskFullTest: disk full at sequence %d of %d, caught up %d ms after space was freed%n",
            stuck, lastAcked, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
        assertMatchesModel(r);
        assertThat(r.stats().get("ingestStopped")).isNull();

        seam.failAfter(
            FaultInjectingFileSystem.Op.FORCE, 0); // the next index sync (checkpoint) fails: sticky
        writeBatches(primary, 5);
        await(
            "the index fails after a failed fsync: " + r.stats(),
            () -> r.stats().get("ingestStopped") != null);
        seam.clearFaults();
        await(
            "caught up after reopening the index: " + r.stats(),
            () -> r.appliedThrough() >= lastAcked && r.stats().get("ingestStopped") == null);
        assertMatchesModel(r);
      } finally {
        r.close();
      }
      ReplicaNode again = ReplicaNode.start(o, new SimpleMeterRegistry());
      try {
        await("restarted replica at " + lastAcked, () -> again.appliedThrough() >= lastAcked);
        assertMatchesModel(again);
      } finally {
        again.close();
      }
    }
  }

  private void writeBatches(DocQueue primary, int batches) throws Exception {
    for (int b = 0; b < batches; b++) {
      long last = 0;
      Map<Long, byte[]> batch = new HashMap<>();
      for (int i = 0; i < 200; i++) {
        long id = rnd.nextInt(3000);
        boolean delete = model.containsKey(id) && rnd.nextInt(8) == 0;
        byte[] body = new byte[delete ? 0 : 50 + rnd.nextInt(200)];
        for (int k = 0; k < body.length; k++) {
          body[k] = (byte) ('a' + rnd.nextInt(12));
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

  private static void await(String what, BooleanSupplier done) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!done.getAsBoolean()) {
      assertThat(System.nanoTime()).as("timed out waiting for " + what).isLessThan(deadline);
      Thread.sleep(20);
    }
  }
}
