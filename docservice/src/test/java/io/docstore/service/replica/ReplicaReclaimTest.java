package io.docstore.service.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.index.LsmIndex;
import io.docstore.io.FileSystem;
import io.docstore.io.SyncPolicy;
import io.docstore.queue.QueueOptions;
import io.docstore.queue.format.BlockFormat;
import io.docstore.queue.replication.ManifestPublisher;
import io.docstore.service.DocStore;
import io.docstore.service.DocStoreOptions;
import io.docstore.service.Update;
import io.docstore.service.cache.OffHeapDocCache;
import io.docstore.service.gc.GcOptions;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replicas of a primary whose space reclamation replaces segments by hollow ones, copied the way
 * rsync copies (whole files renamed in): a replica that follows along takes the relocated records
 * by compare-and-set and keeps serving; one that had not ingested a segment before it was reclaimed
 * starts over and judges relocated records by version; a new replica steps over hollow segments.
 * Each ends with exactly the primary's documents (a HashMap model): nothing lost, nothing
 * resurrected.
 */
class ReplicaReclaimTest {

  private static final int BLOCK = 4096;
  private static final int IDS = 200;

  @TempDir Path tmp;
  private Path primaryDir;
  private DocStore primary;
  private ManifestPublisher publisher;
  private final Map<Long, byte[]> model = new HashMap<>();
  private final Random rnd = new Random(5);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @BeforeEach
  void open() throws Exception {
    primaryDir = tmp.resolve("primary");
    primary =
        DocStore.open(
            primaryDir,
            DocStoreOptions.builder(new OffHeapDocCache(1 << 20))
                .queueOptions(
                    QueueOptions.builder()
                        .syncPolicy(SyncPolicy.NONE)
                        .blockSize(BLOCK)
                        .segmentSize(32 << 10)
                        .build())
                .gc(GcOptions.defaults().withEnabled(false).withReserveBytes(0))
                .checkpointInterval(Duration.ofHours(1))
                .build());
    publisher =
        new ManifestPublisher(
            FileSystem.real(),
            primaryDir.resolve("queue"),
            primary::durableSequence,
            BlockFormat.HEADER_LENGTH + BLOCK,
            0);
  }

  @AfterEach
  void close() throws Exception {
    publisher.close();
    primary.close();
  }

  private void write(int rounds) throws Exception {
    for (int r = 0; r < rounds; r++) {
      List<Update> batch = new ArrayList<>();
      for (int i = 0; i < 80; i++) {
        long id = rnd.nextInt(IDS);
        if (model.get(id) != null && rnd.nextInt(5) == 0) {
          batch.add(Update.delete(id));
          model.put(id, null);
        } else {
          byte[] body = new byte[150 + rnd.nextInt(300)];
          for (int k = 0; k < body.length; k++) {
            body[k] = (byte) ('a' + rnd.nextInt(26));
          }
          batch.add(Update.put(id, body));
          model.put(id, body);
        }
      }
      primary.apply(batch);
    }
    publisher.publishOnce();
  }

  /** Reclaims on the primary until nothing qualifies; returns the segments reclaimed. */
  private int reclaim() throws Exception {
    primary.checkpoint();
    int n = primary.reclamation().run(1.0, Long.MAX_VALUE).segments();
    publisher.publishOnce();
    return n;
  }

  /** What rsync does: each changed file renamed in whole; files gone from the primary deleted. */
  private void pull(Path copyDir) throws IOException {
    RsyncLikeCopy.pull(primaryDir.resolve("queue"), copyDir);
  }

  private ReplicaIngester ingester(String name) throws IOException {
    Path root = tmp.resolve(name);
    Path copyDir = Files.createDirectories(root.resolve("queue"));
    ReplicaOptions o =
        ReplicaOptions.builder("unused", root)
            .expectedBlockBytes(BlockFormat.HEADER_LENGTH + BLOCK)
            .cacheBytes(1 << 20)
            .build();
    return new ReplicaIngester(
        FileSystem.real(),
        copyDir,
        o,
        new ReplicaCheckpoint(
            FileSystem.real(), root.resolve(ReplicaNode.POINT_FILE), Duration.ofSeconds(1)),
        ReplicaMeters.recordLag(registry),
        ReplicaMeters.divergences(registry));
  }

  private static Path copyDir(ReplicaIngester in) {
    return in.follower().directory();
  }

  /** Polls until the replica has what the primary published (a re-sync takes a second poll). */
  private void catchUp(ReplicaIngester in) throws IOException {
    for (int i = 0; i < 5 && in.appliedThrough() < publisher.publishOnce().lastSequence(); i++) {
      pull(copyDir(in));
      in.poll();
    }
  }

  private void assertMatchesThePrimary(ReplicaIngester in, String when) throws IOException {
    assertThat(in.appliedThrough()).as(when).isEqualTo(primary.durableSequence());
    for (long id = 0; id < IDS; id++) {
      byte[] want = model.get(id);
      long address = in.index().get(id);
      if (want == null) {
        assertThat(address).as("%s: id %d resurrected", when, id).isNegative();
      } else {
        assertThat(address).as("%s: id %d lost", when, id).isNotNegative();
        assertThat(Arrays.equals(in.follower().read(address).document(), want))
            .as("%s: id %d an older version", when, id)
            .isTrue();
      }
    }
  }

  @Test
  void aReplicaThatFollowsAlongTakesTheRelocations() throws Exception {
    try (ReplicaIngester in = ingester("follows")) {
      for (int round = 0; round < 6; round++) {
        write(4);
        catchUp(in);
        assertThat(reclaim()).as("round %d reclaims", round).isGreaterThanOrEqualTo(0);
        catchUp(in);
        assertMatchesThePrimary(in, "round " + round);
      }
      assertThat(in.follower().counters().reclaimedSegmentsSkipped.sum()).isZero();
      assertThat(
              registry.find("docstore.replica.divergences").counter() == null
                  ? 0
                  : registry.find("docstore.replica.divergences").counter().count())
          .as("no start-over")
          .isZero();
    }
  }

  @Test
  void aReplicaBehindAReclaimedSegmentStartsOverAndANewOneStepsOverIt() throws Exception {
    try (ReplicaIngester in = ingester("behind")) {
      write(2);
      catchUp(in);
      assertMatchesThePrimary(in, "before");
      write(8);
      int reclaimed = reclaim();
      assertThat(reclaimed).as("segments reclaimed while the replica was away").isPositive();
      catchUp(in);
      assertMatchesThePrimary(in, "after starting over");
      assertThat(in.follower().counters().reclaimedSegmentsSkipped.sum()).isPositive();
      assertThat(in.reclaimRestarts()).as("started over").isPositive();
      assertThat(registry.find("docstore.replica.divergences").counter().count())
          .as("not counted as a divergence (which means the primary lost writes)")
          .isZero();
    }
    try (ReplicaIngester fresh = ingester("fresh")) {
      catchUp(fresh);
      assertMatchesThePrimary(fresh, "a new replica");
      write(3);
      reclaim();
      catchUp(fresh);
      assertMatchesThePrimary(fresh, "a new replica, later");
    }
    assertThat(LsmIndex.DELETED).isNegative();
  }
}
