package io.docstore.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.index.IndexOptions;
import io.docstore.io.FaultInjectingFileSystem;
import io.docstore.io.NoSpaceException;
import io.docstore.io.SyncPolicy;
import io.docstore.queue.DocQueue;
import io.docstore.queue.Op;
import io.docstore.queue.QueueOptions;
import io.docstore.queue.RecordBody;
import io.docstore.queue.tools.QueueVerifier;
import io.docstore.service.DocStore.LoggedUpdate;
import io.docstore.service.cache.OffHeapDocCache;
import io.docstore.service.gc.GcOptions;
import io.docstore.service.groups.FieldGroups;
import io.docstore.service.store.SourceKeys;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A shard's position in each partition of the update log, kept in the queue (SOURCE records),
 * against a model: runs of messages from two partitions (puts, deletes, skipped offsets), runs cut
 * short as a crash cuts them (the SOURCE record and only some of its records in the queue),
 * restarts, space reclamation passes and full index rebuilds, replayed by seed. After every step
 * each partition's position is exactly the offset after the last message whose records are in the
 * queue, the position reads see ({@code visibleLogPosition}, kept by the indexer as it applies
 * records, seeded at open) is the same, and each document reads as the messages applied say.
 */
class LogPositionTest {

  @TempDir Path dir;

  private static final int IDS = 200;

  private static QueueOptions queueOptions() {
    return QueueOptions.builder()
        .syncPolicy(SyncPolicy.NONE)
        .segmentSize(32 << 10)
        .blockSize(4096)
        .build();
  }

  private static DocStoreOptions options(boolean groups) {
    DocStoreOptions.Builder b =
        DocStoreOptions.builder(new OffHeapDocCache(4L << 20))
            .queueOptions(queueOptions())
            .gc(GcOptions.defaults().withEnabled(false).withReserveBytes(0))
            .checkpointInterval(Duration.ofHours(1));
    if (groups) {
      b.groups(new FieldGroups(Map.of("summary", List.of("title"))));
    }
    return b.build();
  }

  private static byte[] body(Random rnd, long id, long offset) {
    StringBuilder pad = new StringBuilder();
    for (int i = 200 + rnd.nextInt(300); i > 0; i--) {
      pad.append((char) ('a' + rnd.nextInt(16)));
    }
    return ("{\"title\":\"t" + id + "@" + offset + "\",\"pad\":\"" + pad + "\"}")
        .getBytes(StandardCharsets.US_ASCII);
  }

  @Test
  void positionsFollowTheDurableRecordsThroughTornRunsReclamationAndRebuilds() throws Exception {
    for (long seed = 1; seed <= 2; seed++) {
      run(seed, false, dir.resolve("plain-" + seed));
      run(seed, true, dir.resolve("groups-" + seed));
    }
  }

  private void run(long seed, boolean groups, Path at) throws Exception {
    Random rnd = new Random(seed);
    Map<Long, String> model = new HashMap<>(); // id -> body, absent when deleted
    long[] next = {0, 0}; // per partition: the offset of the next message
    long[] position = {-1, -1}; // the model's position (-1: nothing consumed)
    DocStore store = DocStore.open(at, options(groups));
    try {
      for (int round = 0; round < 30; round++) {
        int p = rnd.nextInt(2);
        List<LoggedUpdate> run = new ArrayList<>();
        Map<Long, String> applied = new LinkedHashMap<>();
        int messages = rnd.nextInt(12);
        for (int m = 0; m < messages; m++) {
          long offset = next[p]++;
          if (rnd.nextInt(8) == 0) {
            continue; // a dead letter: consumed, no record
          }
          long id = rnd.nextInt(IDS);
          if (rnd.nextInt(4) == 0) {
            run.add(new LoggedUpdate(offset, Update.delete(id)));
          } else {
            byte[] b = body(rnd, id, offset);
            run.add(new LoggedUpdate(offset, Update.put(id, b)));
          }
        }
        next[p] += rnd.nextInt(2); // a skipped message after the last one
        int action = rnd.nextInt(10);
        if (action == 0 && !run.isEmpty()) {
          // A crash inside the run: the SOURCE record and the first k messages' records reach
          // the queue, the rest do not.
          store.close();
          int k = rnd.nextInt(run.size());
          appendTorn(at, groups, p, next[p], run, k);
          for (LoggedUpdate u : run.subList(0, k)) {
            applyToModel(model, u);
          }
          position[p] = run.get(k).offset();
          next[p] = position[p]; // the log is read again from there
          store = DocStore.open(at, options(groups));
        } else {
          store.applyFromLog(p, next[p], run);
          for (LoggedUpdate u : run) {
            applyToModel(model, u);
          }
          position[p] = next[p];
        }
        if (action == 1) {
          store.close();
          store = DocStore.open(at, options(groups));
        } else if (action == 2) {
          store.reclamation().run(1.0, Long.MAX_VALUE);
        } else if (action == 3) {
          store.close();
          store = DocStore.openRebuildingIndex(at, options(groups));
        }
        check(store, model, position, "seed " + seed + " round " + round);
      }
      // Partition 1 goes quiet while partition 0 overwrites a few documents many times: the
      // segments holding partition 1's newest SOURCE record turn to garbage and are reclaimed, so
      // its position survives only as the relocated, resolved copy.
      for (int round = 0; round < 60; round++) {
        List<LoggedUpdate> run = new ArrayList<>();
        for (int m = 0; m < 8; m++) {
          long offset = next[0]++;
          long id = rnd.nextInt(10);
          run.add(new LoggedUpdate(offset, Update.put(id, body(rnd, id, offset))));
        }
        store.applyFromLog(0, next[0], run);
        for (LoggedUpdate u : run) {
          applyToModel(model, u);
        }
        position[0] = next[0];
      }
      var pass = store.reclamation().run(1.0, Long.MAX_VALUE);
      assertThat(pass.segments()).as("the pass reclaims segments").isPositive();
      check(store, model, position, "seed " + seed + " after partition 1's segments went");
      store.close();
      assertThat(QueueVerifier.verify(at.resolve("queue"))).isEmpty();
      store = DocStore.openRebuildingIndex(at, options(groups));
      check(store, model, position, "seed " + seed + " after a last pass and a rebuild");
      store.close();
      store = DocStore.openReadOnly(at, options(groups));
      check(store, model, position, "seed " + seed + " read-only");
    } finally {
      store.close();
    }
  }

  private static void applyToModel(Map<Long, String> model, LoggedUpdate u) {
    if (u.update().isDelete()) {
      model.remove(u.update().id());
    } else {
      model.put(u.update().id(), new String(u.update().body(), StandardCharsets.US_ASCII));
    }
  }

  /**
   * Appends, with the store closed, what a crash leaves of a run: its SOURCE record and the records
   * of its first {@code k} messages (projections first where the store has groups).
   */
  private static void appendTorn(
      Path at, boolean groups, int partition, long nextOffset, List<LoggedUpdate> run, int k)
      throws Exception {
    List<Long> ids = new ArrayList<>();
    List<Long> offsets = new ArrayList<>();
    for (LoggedUpdate u : run) {
      int records = groups && !u.update().isDelete() ? 2 : 1;
      for (int r = 0; r < records; r++) {
        ids.add(u.update().id());
        offsets.add(u.offset());
      }
    }
    FieldGroups fg = new FieldGroups(Map.of("summary", List.of("title")));
    try (DocQueue q = DocQueue.open(at.resolve("queue"), queueOptions())) {
      long now = System.currentTimeMillis();
      q.writer()
          .append(
              SourceKeys.key(partition),
              Op.SOURCE,
              now,
              RecordBody.source(
                  partition,
                  nextOffset,
                  ids.stream().mapToLong(Long::longValue).toArray(),
                  offsets.stream().mapToLong(Long::longValue).toArray()));
      for (LoggedUpdate u : run.subList(0, k)) {
        long id = u.update().id();
        if (u.update().isDelete()) {
          q.writer().append(id, Op.DELETE, now, new byte[0]);
        } else if (groups) {
          byte[][] projections = fg.project(id, u.update().body());
          q.writer()
              .appendWithGroups(
                  id, now, fg.record(-1, RecordBody.NEVER, projections), Op.PUT, u.update().body());
        } else {
          q.writer().append(id, Op.PUT, now, u.update().body());
        }
      }
      q.writer().sync();
    }
  }

  private static void check(DocStore store, Map<Long, String> model, long[] position, String at)
      throws Exception {
    for (int p = 0; p < 2; p++) {
      assertThat(store.logPosition(p))
          .as("%s: position of partition %d", at, p)
          .isEqualTo(position[p]);
      assertThat(store.visibleLogPosition(p))
          .as("%s: visible position of partition %d", at, p)
          .isEqualTo(position[p]);
    }
    assertThat(store.visibleLogPosition(2)).as("%s: a partition never consumed", at).isEqualTo(-1);
    for (long id = 0; id < IDS; id++) {
      var d = store.get(id);
      String want = model.get(id);
      assertThat(d == null ? null : new String(d.body(), StandardCharsets.US_ASCII))
          .as("%s: document %d", at, id)
          .isEqualTo(want);
    }
  }

  @Test
  void aRunLongerThanOneSourceRecordHoldsIsAppendedWhole() throws Exception {
    for (boolean groups : new boolean[] {false, true}) {
      Path at = dir.resolve("long-run-" + groups);
      // Documents of at most 256 bytes: a SOURCE record holds 16 entries (8 messages with groups).
      DocStoreOptions.Builder b =
          DocStoreOptions.builder(new OffHeapDocCache(4L << 20))
              .queueOptions(
                  QueueOptions.builder()
                      .syncPolicy(SyncPolicy.NONE)
                      .segmentSize(32 << 10)
                      .blockSize(4096)
                      .maxBodyBytes(256)
                      .build())
              .maxBodyBytes(256)
              .gc(GcOptions.defaults().withEnabled(false).withReserveBytes(0))
              .checkpointInterval(Duration.ofHours(1));
      if (groups) {
        b.groups(new FieldGroups(Map.of("summary", List.of("title"))));
      }
      Map<Long, String> model = new HashMap<>();
      List<LoggedUpdate> run = new ArrayList<>();
      for (long offset = 10; offset < 1_000; offset += 3) { // gaps: dead letters skipped
        long id = offset % 97;
        if (offset % 5 == 0) {
          run.add(new LoggedUpdate(offset, Update.delete(id)));
          model.remove(id);
        } else {
          String json = "{\"title\":\"t" + offset + "\"}";
          run.add(
              new LoggedUpdate(offset, Update.put(id, json.getBytes(StandardCharsets.US_ASCII))));
          model.put(id, json);
        }
      }
      try (DocStore store = DocStore.open(at, b.build())) {
        store.applyFromLog(1, 1_005, run);
        assertThat(store.logPosition(1)).as("groups %s", groups).isEqualTo(1_005);
        assertThat(store.visibleLogPosition(1)).isEqualTo(1_005);
      }
      try (DocStore store = DocStore.open(at, b.build())) {
        assertThat(store.logPosition(1)).as("groups %s, reopened", groups).isEqualTo(1_005);
        for (long id = 0; id < 97; id++) {
          var d = store.get(id);
          assertThat(d == null ? null : new String(d.body(), StandardCharsets.US_ASCII))
              .as("groups %s: document %d", groups, id)
              .isEqualTo(model.get(id));
        }
      }
    }
  }

  /**
   * The pipelined ingest appends a run before the one before it is known durable: if a full disk
   * discards that earlier run's records, the later run must not be appended (its SOURCE record
   * would say the lost messages were applied).
   */
  @Test
  void noRunIsAppendedAfterAFullDiskDiscardedRecordsOfAnEarlierRunNotYetDurable() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    DocStoreOptions o =
        DocStoreOptions.builder(new OffHeapDocCache(4L << 20))
            .fileSystem(fs)
            .queueOptions(QueueOptions.builder().fileSystem(fs).blockSize(4096).build())
            .indexOptions(IndexOptions.builder().fileSystem(fs).syncPolicy(SyncPolicy.NONE).build())
            .gc(GcOptions.defaults().withEnabled(false).withReserveBytes(0))
            .checkpointInterval(Duration.ofHours(1))
            .build();
    try (DocStore store = DocStore.open(dir.resolve("chain"), o)) {
      store.applyFromLog(0, 10, run(0, 10));
      DocStore.AppendedRun a = store.appendFromLog(store.prepareFromLog(0, 20, run(10, 20)), null);
      fs.setSpaceLimit(0); // the write of a's block fails: its records are discarded
      assertThatThrownBy(() -> store.completeFromLog(a)).isInstanceOf(NoSpaceException.class);
      fs.clearSpaceLimit();
      DocStore.LogRun b = store.prepareFromLog(0, 30, run(20, 30));
      assertThatThrownBy(() -> store.appendFromLog(b, a))
          .isInstanceOf(NoSpaceException.class)
          .hasMessageContaining("earlier run");
      assertThat(store.logPosition(0))
          .as("nothing of the lost run or the one after it")
          .isEqualTo(10);
      for (long id = 10; id < 30; id++) {
        assertThat(store.get(id)).as("document %d", id).isNull();
      }
      // A new chain (the ingest read again from the store's position) appends again.
      store.completeFromLog(store.appendFromLog(store.prepareFromLog(0, 20, run(10, 20)), null));
      assertThat(store.logPosition(0)).isEqualTo(20);
      assertThat(store.get(15).body()).isEqualTo(json(15));
    }
  }

  /**
   * Messages at offsets {@code from} to {@code to} (exclusive), each a put of document = offset.
   */
  private static List<LoggedUpdate> run(long from, long to) {
    List<LoggedUpdate> run = new ArrayList<>();
    for (long offset = from; offset < to; offset++) {
      run.add(new LoggedUpdate(offset, Update.put(offset, json(offset))));
    }
    return run;
  }

  private static byte[] json(long id) {
    return ("{\"n\":" + id + "}").getBytes(StandardCharsets.US_ASCII);
  }

  @Test
  void theSourceKeysAreNeverDocuments() throws Exception {
    try (DocStore store = DocStore.open(dir.resolve("reserved"), options(false))) {
      store.applyFromLog(0, 3, List.of(new LoggedUpdate(1, Update.put(7, "{}".getBytes()))));
      assertThatThrownBy(() -> store.apply(List.of(Update.put(SourceKeys.FIRST, "{}".getBytes()))))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("reserved");
      assertThatThrownBy(() -> store.get(SourceKeys.key(0)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("reserved");
      assertThat(store.logPosition(0)).isEqualTo(3);
      assertThat(store.logPosition(1)).isEqualTo(-1);
      assertThat(store.fedByLog()).as("it holds a position").isTrue();
      assertThatThrownBy(() -> store.visibleLogPosition(SourceKeys.MAX_PARTITIONS))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("at most 65536 partitions");
      assertThatThrownBy(() -> store.visibleLogPosition(-1))
          .isInstanceOf(IllegalArgumentException.class);
      assertThat(store.get(7).body()).isEqualTo("{}".getBytes());
      assertThatThrownBy(
              () ->
                  store.applyFromLog(
                      0,
                      5,
                      List.of(
                          new LoggedUpdate(4, Update.put(1, "{}".getBytes())),
                          new LoggedUpdate(4, Update.put(2, "{}".getBytes())))))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("increase");
    }
  }
}
