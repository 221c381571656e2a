package io.docstore.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.client.Document;
import io.docstore.index.IndexOptions;
import io.docstore.io.FaultInjectingFileSystem;
import io.docstore.io.SyncPolicy;
import io.docstore.io.TestSupport;
import io.docstore.queue.QueueOptions;
import io.docstore.service.cache.OffHeapDocCache;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Power-loss simulation through the file-system seam: every acknowledged update survives a crash
 * that drops all unsynced data (queue, index WAL, checkpoint renames), whether the crash comes
 * before, between or after checkpoints; the index is rebuilt from the queue past the checkpoint.
 */
class DocStoreCrashTest {

  @TempDir Path dir;

  private DocStore open(FaultInjectingFileSystem fs) throws IOException {
    return DocStore.open(
        dir,
        DocStoreOptions.builder(new OffHeapDocCache(64L << 20))
            .fileSystem(fs)
            .checkpointInterval(Duration.ofHours(1))
            .queueOptions(
                QueueOptions.builder()
                    .fileSystem(fs)
                    .syncPolicy(SyncPolicy.ALWAYS)
                    .blockSize(1024)
                    .segmentSize(64 * 1024)
                    .build())
            .indexOptions(
                IndexOptions.builder()
                    .fileSystem(fs)
                    .syncPolicy(SyncPolicy.NONE)
                    .memTableBytes(64 * 1024)
                    .build())
            .build());
  }

  /**
   * Simulates power loss, then lets the dead instance release its lock without writing anything.
   */
  private static void crash(FaultInjectingFileSystem fs, DocStore s, Random rnd)
      throws IOException {
    // Half the power losses write back a random set of the unforced pages, out of order.
    fs.crash(
        rnd.nextBoolean()
            ? FaultInjectingFileSystem.Writeback.none()
            : FaultInjectingFileSystem.Writeback.random(rnd.nextLong()));
    for (FaultInjectingFileSystem.Op op : FaultInjectingFileSystem.Op.values()) {
      fs.failAfter(op, 0);
    }
    try {
      s.close();
    } catch (IOException | RuntimeException expected) {
      // every write fails now, as it would in a dead process
    }
    fs.crash();
  }

  @Test
  void acknowledgedUpdatesSurviveCrashesAtRandomPoints() throws IOException {
    long seed = TestSupport.seed("DocStoreCrashTest");
    Random rnd = new Random(seed);
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    Map<Long, String> model = new HashMap<>();
    int rounds = 6 * TestSupport.scale();
    for (int round = 0; round < rounds; round++) {
      DocStore s = open(fs);
      for (Map.Entry<Long, String> e : model.entrySet()) {
        Document d = s.get(e.getKey());
        assertThat(d).as("seed %d round %d id %d", seed, round, e.getKey()).isNotNull();
        assertThat(new String(d.body(), StandardCharsets.UTF_8))
            .as("seed %d", seed)
            .isEqualTo(e.getValue());
      }
      for (long id = 0; id < 400; id++) {
        if (!model.containsKey(id)) {
          assertThat(s.get(id))
              .as("seed %d round %d id %d deleted or never written", seed, round, id)
              .isNull();
        }
      }
      int ops = 200 + rnd.nextInt(400);
      for (int i = 0; i < ops; i++) {
        long id = rnd.nextInt(400);
        if (rnd.nextInt(8) == 0) {
          s.delete(id);
          model.remove(id);
        } else {
          String body =
              "{\"id\":"
                  + id
                  + ",\"r\":"
                  + round
                  + ",\"v\":\""
                  + "y".repeat(rnd.nextInt(300))
                  + "\"}";
          s.put(id, body.getBytes(StandardCharsets.UTF_8));
          model.put(id, body);
        }
        if (rnd.nextInt(150) == 0) {
          s.checkpoint();
        }
      }
      crash(fs, s, rnd);
    }
    try (DocStore s = open(fs)) {
      for (Map.Entry<Long, String> e : model.entrySet()) {
        assertThat(new String(s.get(e.getKey()).body(), StandardCharsets.UTF_8))
            .isEqualTo(e.getValue());
      }
    }
  }

  /**
   * Under sync {@code none} the sequence published to replicas is one a power loss cannot take
   * away, so a replica never holds a version its primary lost (its history stays a prefix of the
   * primary's).
   */
  @Test
  void theSequencePublishedToReplicasSurvivesAPowerLossUnderSyncNone() throws IOException {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    DocStore s =
        DocStore.open(
            dir,
            DocStoreOptions.builder(new OffHeapDocCache(64L << 20))
                .fileSystem(fs)
                .queueOptions(
                    QueueOptions.builder()
                        .fileSystem(fs)
                        .syncPolicy(SyncPolicy.NONE)
                        .blockSize(1024)
                        .segmentSize(64 * 1024)
                        .build())
                .indexOptions(
                    IndexOptions.builder()
                        .fileSystem(fs)
                        .syncPolicy(SyncPolicy.NONE)
                        .memTableBytes(64 * 1024)
                        .build())
                .build());
    for (long id = 0; id < 100; id++) {
      s.put(id, ("{\"id\":" + id + "}").getBytes(StandardCharsets.UTF_8));
    }
    long published = s.durableSequence();
    assertThat(published).isEqualTo(100);
    for (long id = 100; id < 150; id++) {
      s.put(id, ("{\"id\":" + id + "}").getBytes(StandardCharsets.UTF_8)); // written, not fsynced
    }
    crash(fs, s, new Random(1));
    try (DocStore after = open(fs)) {
      assertThat(after.lastSequence())
          .as("what was published to replicas survived")
          .isGreaterThanOrEqualTo(published);
      for (long id = 0; id < 100; id++) {
        assertThat(after.get(id)).as("id %d", id).isNotNull();
      }
    }
  }
}
