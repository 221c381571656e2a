package io.docstore.service.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.index.IndexOptions;
import io.docstore.io.FaultInjectingFileSystem;
import io.docstore.io.SyncPolicy;
import io.docstore.io.TestSupport;
import io.docstore.queue.QueueOptions;
import io.docstore.queue.SegmentSummary;
import io.docstore.service.DocStore;
import io.docstore.service.DocStoreOptions;
import io.docstore.service.Update;
import io.docstore.service.Written;
import io.docstore.service.cache.OffHeapDocCache;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The live records per segment equal a model's count (a HashMap from ID to the sequence of its
 * current PUT) after random puts, overwrites, deletes and batches with repeated IDs, across clean
 * reopens and power losses (docs/design/space-reclamation.md, "Garbage accounting").
 */
class LiveRecordsTest {

  @TempDir Path dir;

  private DocStore open(FaultInjectingFileSystem fs) throws IOException {
    return DocStore.open(
        dir,
        DocStoreOptions.builder(new OffHeapDocCache(8L << 20))
            .fileSystem(fs)
            .checkpointInterval(Duration.ofHours(1))
            .queueOptions(
                QueueOptions.builder()
                    .fileSystem(fs)
                    .syncPolicy(SyncPolicy.ALWAYS)
                    .blockSize(1024)
                    .segmentSize(32 * 1024)
                    .build())
            .indexOptions(
                IndexOptions.builder()
                    .fileSystem(fs)
                    .syncPolicy(SyncPolicy.NONE)
                    .memTableBytes(16 * 1024)
                    .build())
            .build());
  }

  /** What each segment's live count must be: the model's current PUTs that lie in it. */
  private static void check(DocStore s, Map<Long, Long> model, String as) {
    List<SegmentSummary> segments = s.queueSegments();
    long total = 0;
    for (SegmentSummary seg : segments) {
      long expected =
          model.values().stream()
              .filter(q -> q >= seg.firstSequence() && q <= seg.lastSequence())
              .count();
      assertThat(s.liveRecords().live(seg.number()))
          .as(
              "%s: segment %d (sequences %d..%d)",
              as, seg.number(), seg.firstSequence(), seg.lastSequence())
          .isEqualTo(expected);
      total += expected;
    }
    assertThat(s.liveRecords().total()).as(as).isEqualTo(total).isEqualTo(model.size());
    Map<String, Object> space = s.space();
    assertThat(space.get("liveRecords")).isEqualTo((long) model.size());
  }

  @Test
  void liveRecordsFollowAModelAcrossReopensAndPowerLosses() throws IOException {
    long seed = TestSupport.seed("LiveRecordsTest");
    Random rnd = new Random(seed);
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    Map<Long, Long> model = new HashMap<>();
    DocStore s = open(fs);
    for (int round = 0; round < 12; round++) {
      int ops = 100 + rnd.nextInt(300);
      for (int op = 0; op < ops; op++) {
        List<Update> batch = new ArrayList<>();
        int size = rnd.nextInt(5) == 0 ? 2 + rnd.nextInt(20) : 1;
        for (int b = 0; b < size; b++) {
          long id = rnd.nextInt(300); // repeats within a batch too
          batch.add(
              rnd.nextInt(6) == 0
                  ? Update.delete(id)
                  : Update.put(
                      id,
                      ("{\"id\":" + id + ",\"v\":\"" + "x".repeat(rnd.nextInt(200)) + "\"}")
                          .getBytes(StandardCharsets.UTF_8)));
        }
        List<Written> written = s.apply(batch);
        for (int b = 0; b < batch.size(); b++) {
          Update u = batch.get(b);
          if (u.isDelete()) {
            model.remove(u.id());
          } else {
            model.put(u.id(), written.get(b).sequence());
          }
        }
      }
      check(s, model, "round " + round + " (seed " + seed + ")");
      switch (rnd.nextInt(3)) {
        case 0 -> {
          s.close();
          s = open(fs);
        }
        case 1 -> {
          // Power loss: every update above was acknowledged (sync=always), so all of it stays;
          // the index is re-derived from the checkpoint and the queue.
          fs.crash(FaultInjectingFileSystem.Writeback.random(rnd.nextLong()));
          for (FaultInjectingFileSystem.Op o : FaultInjectingFileSystem.Op.values()) {
            fs.failAfter(o, 0);
          }
          try {
            s.close();
          } catch (IOException | RuntimeException expected) {
            // a dead process writes nothing
          }
          fs.crash();
          s = open(fs);
        }
        default -> s.checkpoint();
      }
      check(s, model, "after round " + round + " (seed " + seed + ")");
    }
    s.close();
  }
}
