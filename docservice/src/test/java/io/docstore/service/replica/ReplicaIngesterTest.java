package io.docstore.service.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.index.LsmIndex;
import io.docstore.io.FileSystem;
import io.docstore.io.TestSupport;
import io.docstore.queue.DocQueue;
import io.docstore.queue.Op;
import io.docstore.queue.QueueOptions;
import io.docstore.queue.follow.FollowPoint;
import io.docstore.queue.format.BlockFormat;
import io.docstore.queue.format.SegmentFileName;
import io.docstore.queue.replication.ManifestPublisher;
import io.docstore.service.cache.CachedDoc;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ReplicaIngester} with its {@link ReplicaCheckpoint}, without rsync: a primary queue and
 * its manifest, copied the way rsync copies (whole files renamed in), ingested into index and
 * cache, checkpointed, resumed, rewound after an index failure, and re-synced after the primary
 * lost what the replica had ingested; checked against a model of what the primary acknowledged.
 */
class ReplicaIngesterTest {

  private static final int BLOCK = 1024;
  private static final int EXPECTED = BlockFormat.HEADER_LENGTH + BLOCK;

  @TempDir Path tmp;
  private Path primaryDir;
  private Path copyDir;
  private DocQueue queue;
  private ManifestPublisher publisher;
  private final Map<Long, byte[]> model = new HashMap<>();
  private Random rnd;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @BeforeEach
  void open() throws Exception {
    rnd = new Random(TestSupport.seed("ReplicaIngesterTest"));
    primaryDir = tmp.resolve("primary");
    copyDir = Files.createDirectories(tmp.resolve("r/queue"));
    queue =
        DocQueue.open(
            primaryDir, QueueOptions.builder().blockSize(BLOCK).segmentSize(16 * 1024).build());
    publisher =
        new ManifestPublisher(FileSystem.real(), primaryDir, queue::durableSequence, EXPECTED, 0);
  }

  @AfterEach
  void close() throws Exception {
    publisher.close();
    queue.close();
  }

  private ReplicaCheckpoint checkpoint() throws IOException {
    return new ReplicaCheckpoint(
        FileSystem.real(), tmp.resolve("r").resolve(ReplicaNode.POINT_FILE), Duration.ofSeconds(1));
  }

  private ReplicaIngester ingester(ReplicaCheckpoint c) throws IOException {
    ReplicaOptions o =
        ReplicaOptions.builder("unused", tmp.resolve("r"))
            .expectedBlockBytes(EXPECTED)
            .cacheBytes(1 << 20)
            .build();
    return new ReplicaIngester(
        FileSystem.real(),
        copyDir,
        o,
        c,
        ReplicaMeters.recordLag(registry),
        ReplicaMeters.divergences(registry));
  }

  @Test
  void ingestsWhatTheCopiedManifestDeclaresDurableIntoIndexAndCache() throws Exception {
    try (ReplicaIngester in = ingester(checkpoint())) {
      in.poll();
      assertThat(in.appliedThrough()).as("no manifest copied yet").isZero();
      long last = write(300);
      pull();
      in.poll();
      assertThat(in.appliedThrough()).isEqualTo(last);
      assertThat(in.sequencesBehind()).isZero();
      assertThat(in.bytesBehind()).isZero();
      assertThat(in.appliedVersion()).as("advanced per batch").isPositive();
      assertThat(in.ingestFailure()).isNull();
      assertIndexAndCacheMatchModel(in);
    }
  }

  @Test
  void aCheckpointedReplicaResumesAtItsPoint() throws Exception {
    long last = write(200);
    pull();
    ReplicaCheckpoint c = checkpoint();
    FollowPoint point;
    try (ReplicaIngester in = ingester(c)) {
      in.poll();
      in.checkpoint();
      point = in.follower().point();
      assertThat(c.point()).isEqualTo(point);
      assertThat(point.ingestedThrough()).isEqualTo(last);
    }
    long more = write(200);
    pull();
    ReplicaCheckpoint reopened = checkpoint();
    assertThat(reopened.point()).isEqualTo(point);
    try (ReplicaIngester in = ingester(reopened)) {
      assertThat(in.appliedThrough()).as("resumes at the persisted point").isEqualTo(last);
      in.poll();
      assertThat(in.appliedThrough()).isEqualTo(more);
      assertThat(in.follower().counters().recordsIngested.sum())
          .as("only what follows the point")
          .isEqualTo(more - last);
      for (Map.Entry<Long, byte[]> e : model.entrySet()) {
        assertThat(in.index().get(e.getKey()))
            .as("id %d indexed", e.getKey())
            .satisfiesAnyOf(
                v -> assertThat(v).isNotNegative(), v -> assertThat(v).isEqualTo(LsmIndex.DELETED));
      }
    }
  }

  @Test
  void aFailedIndexIsReopenedAndTheFollowerRewoundToThePersistedPoint() throws Exception {
    ReplicaCheckpoint c = checkpoint();
    try (ReplicaIngester in = ingester(c)) {
      long first = write(100);
      pull();
      in.poll();
      in.checkpoint();
      FollowPoint persisted = c.point();
      assertThat(persisted.ingestedThrough()).isEqualTo(first);

      long last = write(100);
      pull();
      in.index().close(); // the index fails under the ingester
      assertThatThrownBy(in::poll).isInstanceOf(IOException.class);
      assertThat(in.ingestFailure()).isNotNull();
      assertThat(in.appliedThrough()).isEqualTo(first);
      in.checkpoint();
      assertThat(c.point())
          .as("the follower is past records the index lacks: no checkpoint")
          .isEqualTo(persisted);

      long version = in.appliedVersion();
      in.reopenIfBroken();
      assertThat(in.appliedThrough()).isEqualTo(first);
      assertThat(in.follower().point()).isEqualTo(persisted);
      assertThat(in.appliedVersion()).as("reads see the rewind").isGreaterThan(version);
      assertThat(model.keySet())
          .as("the cache, which may have been ahead of the reopened index, is cleared")
          .allSatisfy(id -> assertThat(in.cache().get(id)).isNull());

      in.poll();
      assertThat(in.appliedThrough()).isEqualTo(last);
      assertThat(in.ingestFailure()).isNull();
      in.checkpoint();
      assertThat(c.point().ingestedThrough()).isEqualTo(last);
      assertIndexAndCacheMatchModel(in);
    }
  }

  /**
   * The primary loses the tail of its active segment that the replica already ingested (a power
   * loss on a disk that did not keep what was fsynced), comes back and takes other writes, which
   * land at the offsets the replica holds, so the copy's bytes there differ; the new manifest
   * verifies against the new copy. The replica must see that its history is not the primary's, drop
   * it and ingest the primary's. (Without the check it refused the new copy as damaged, deleting
   * and re-fetching it forever, and kept serving the lost versions.)
   */
  @Test
  void aReplicaWhosePrimaryLostAndRewroteWhatItIngestedReSyncsToThePrimary() throws Exception {
    reSyncsAfterThePrimaryLostAndRewrote(40);
  }

  /**
   * The same, but the primary's new writes also fill and seal the segment: the replica finds the
   * divergence in the sealed copy (verified in full, but another chain at the replica's offset).
   */
  @Test
  void aReplicaWhosePrimaryRewroteAndSealedWhatItIngestedReSyncsToThePrimary() throws Exception {
    reSyncsAfterThePrimaryLostAndRewrote(300);
  }

  private void reSyncsAfterThePrimaryLostAndRewrote(int newWrites) throws Exception {
    ReplicaCheckpoint c = checkpoint();
    try (ReplicaIngester in = ingester(c)) {
      write(20);
      long keptLength = publisher.lastPublished().durableLength();
      Map<Long, byte[]> kept = new HashMap<>(model);
      long lost = write(20);
      pull();
      in.poll();
      in.checkpoint();
      assertThat(in.appliedThrough()).isEqualTo(lost);
      long replicaOffset = c.point().offset();

      losePrimaryTailTo(keptLength, kept);
      long last = write(newWrites); // other records at the offsets the replica holds
      assertThat(
              publisher.lastPublished().segment() > 1
                  || publisher.lastPublished().durableLength() > replicaOffset)
          .as("the primary declares more than the replica's offset again")
          .isTrue();
      pull();
      in.poll();
      FollowPoint afterFirstPoll = c.point();
      pull(); // re-fetches the dropped copies
      in.poll();
      assertThat(in.appliedThrough())
          .as("caught up with the primary (follower: %s)", in.follower().lastError())
          .isEqualTo(last);
      assertThat(in.follower().lastError()).isNull();
      assertIndexAndCacheMatchModel(in);
      assertThat(registry.counter("docstore.replica.divergences").count()).isEqualTo(1);
      assertThat(afterFirstPoll)
          .as("the start was persisted: a restart starts over too")
          .isEqualTo(FollowPoint.START);
    }
  }

  /**
   * The primary loses the tail the replica ingested and takes no more writes: its manifest declares
   * less than the replica holds. The replica is ahead of its primary, serving versions the primary
   * no longer has; it must re-sync down to the primary's state. (Without the check it kept them.)
   */
  @Test
  void aReplicaAheadOfItsPrimaryReSyncsDownToIt() throws Exception {
    try (ReplicaIngester in = ingester(checkpoint())) {
      long keptSequence = write(20);
      long keptLength = publisher.lastPublished().durableLength();
      Map<Long, byte[]> kept = new HashMap<>(model);
      write(20);
      pull();
      in.poll();
      losePrimaryTailTo(keptLength, kept);
      publisher.publishOnce();
      pull();
      in.poll();
      pull();
      in.poll();
      assertThat(in.appliedThrough()).as("the primary's last sequence").isEqualTo(keptSequence);
      assertIndexAndCacheMatchModel(in);
      assertThat(registry.counter("docstore.replica.divergences").count()).isEqualTo(1);
    }
  }

  /**
   * Closes the primary, cuts its newest segment to {@code length} (a block boundary the manifest
   * declared), reopens it (recovery keeps what is left) and rolls the model back to {@code kept}.
   */
  private void losePrimaryTailTo(long length, Map<Long, byte[]> kept) throws Exception {
    publisher.close();
    queue.close();
    Path newest;
    try (Stream<Path> s = Files.list(primaryDir)) {
      newest =
          s.filter(f -> SegmentFileName.parse(f).isPresent())
              .max(java.util.Comparator.naturalOrder())
              .orElseThrow();
    }
    assertThat(newest.getFileName().toString()).endsWith(".active");
    try (var ch =
        java.nio.channels.FileChannel.open(newest, java.nio.file.StandardOpenOption.WRITE)) {
      ch.truncate(length);
    }
    open();
    model.clear();
    model.putAll(kept);
  }

  /** Every model document is in the index; the cache holds those ingested since the last rewind. */
  private void assertIndexAndCacheMatchModel(ReplicaIngester in) throws IOException {
    for (long id = 0; id < 50; id++) {
      if (!model.containsKey(id)) {
        assertThat(in.index().get(id)).as("never written %d", id).isEqualTo(LsmIndex.ABSENT);
        assertThat(in.cache().get(id)).as("never written %d", id).isNull();
      }
    }
    for (Map.Entry<Long, byte[]> e : model.entrySet()) {
      long id = e.getKey();
      CachedDoc cached = in.cache().get(id);
      if (e.getValue() == null) {
        assertThat(in.index().get(id)).as("deleted %d", id).isEqualTo(LsmIndex.DELETED);
        if (cached != null) {
          assertThat(cached.deleted()).as("tombstone of %d", id).isTrue();
        }
      } else {
        long address = in.index().get(id);
        assertThat(address).as("address of %d", id).isNotNegative();
        assertThat(in.follower().read(address).body())
            .as("record of %d", id)
            .isEqualTo(e.getValue());
        if (cached != null) {
          assertThat(cached.body()).as("cached %d", id).isEqualTo(e.getValue());
        }
      }
    }
  }

  /**
   * Acknowledged puts and deletes of ids 0..49, then one manifest publish; returns the last
   * sequence.
   */
  private long write(int n) throws Exception {
    long last = 0;
    for (int i = 0; i < n; i++) {
      long id = rnd.nextInt(50);
      boolean delete = model.get(id) != null && rnd.nextInt(6) == 0;
      byte[] body = new byte[delete ? 0 : 20 + rnd.nextInt(200)];
      rnd.nextBytes(body);
      last =
          queue
              .writer()
              .append(id, delete ? Op.DELETE : Op.PUT, System.currentTimeMillis(), body)
              .sequence();
      model.put(id, delete ? null : body);
    }
    queue.writer().awaitDurable(last);
    publisher.publishOnce();
    return last;
  }

  /**
   * What rsync does: each changed file as a whole new file renamed in; files gone from the primary
   * deleted.
   */
  private void pull() throws IOException {
    RsyncLikeCopy.pull(primaryDir, copyDir);
  }
}
