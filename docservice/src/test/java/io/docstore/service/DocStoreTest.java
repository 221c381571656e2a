package io.docstore.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.client.Document;
import io.docstore.index.IndexOptions;
import io.docstore.index.LsmIndex;
import io.docstore.io.CorruptionException;
import io.docstore.io.TestSupport;
import io.docstore.service.cache.OffHeapDocCache;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DocStoreTest {

  @TempDir Path dir;

  private DocStore open(OffHeapDocCache cache) throws IOException {
    return DocStore.open(dir, DocStoreOptions.builder(cache).build());
  }

  private static byte[] json(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void putGetDeleteWithReadYourWrites() throws IOException {
    try (DocStore s = open(new OffHeapDocCache(64L << 20))) {
      Written w1 = s.put(7, json("{\"a\":1}"));
      Written w2 = s.put(7, json("{\"a\":2}"));
      assertThat(w2.sequence()).isGreaterThan(w1.sequence());
      assertThat(s.get(7).body()).isEqualTo(json("{\"a\":2}"));
      assertThat(s.get(7).sequence()).isEqualTo(w2.sequence());
      assertThat(s.get(8)).isNull();
      s.delete(7);
      assertThat(s.get(7)).isNull();
      assertThat(s.appliedThrough()).isEqualTo(s.lastSequence());
    }
  }

  /**
   * The copying read of a miss returns what get returns and fills the cache (the queue's reader
   * tests cover its sources: blocks read in place from the mapping, decoded blocks).
   */
  @Test
  void aMissCopiedIntoABufferMatchesGetAndFillsTheCache() throws IOException {
    OffHeapDocCache cache = new OffHeapDocCache(64L << 20);
    java.util.Random rnd = new java.util.Random(5);
    try (DocStore s = open(cache)) {
      List<Update> batch = new java.util.ArrayList<>();
      for (long id = 0; id < 200; id++) {
        byte[] body = new byte[100 + rnd.nextInt(900)];
        if (id < 100) {
          java.util.Arrays.fill(body, (byte) 'a');
        } else {
          rnd.nextBytes(body);
        }
        batch.add(Update.put(id, body));
      }
      s.apply(batch);
      s.delete(7);
      s.checkpoint();
      cache.clear();
      io.netty.buffer.ByteBuf out = io.netty.buffer.Unpooled.buffer();
      for (long id = 0; id < 200; id++) {
        out.clear();
        long seq = s.copy(id, out);
        if (id == 7) {
          assertThat(seq).isEqualTo(-1);
          assertThat(out.readableBytes()).isZero();
          continue;
        }
        byte[] copied = new byte[out.readableBytes()];
        out.getBytes(0, copied);
        assertThat(copied).as("id %d", id).isEqualTo(batch.get((int) id).body());
        assertThat(cache.get(id)).as("filled %d", id).isNotNull();
        Document d = s.get(id);
        assertThat(seq).isEqualTo(d.sequence());
      }
      assertThat(s.copy(1_000, out.clear())).isEqualTo(-1);
    }
  }

  @Test
  void readsFromDiskWhenTheCacheIsEmpty() throws IOException {
    OffHeapDocCache cache = new OffHeapDocCache(64L << 20);
    try (DocStore s = open(cache)) {
      s.put(1, json("{\"x\":1}"));
      s.put(2, json("{\"x\":2}"));
      s.delete(2);
      cache.clear();
      assertThat(s.get(1).body()).isEqualTo(json("{\"x\":1}"));
      assertThat(s.get(2)).isNull();
      Document[] all = s.getAll(new long[] {2, 1, 3, 1});
      assertThat(all[0]).isNull();
      assertThat(all[1].body()).isEqualTo(json("{\"x\":1}"));
      assertThat(all[2]).isNull();
      assertThat(all[3].id()).isEqualTo(1);
    }
  }

  @Test
  void rejectsNegativeIdsAndOversizedBodies() throws IOException {
    try (DocStore s =
        DocStore.open(
            dir,
            DocStoreOptions.builder(new OffHeapDocCache(64L << 20)).maxBodyBytes(10).build())) {
      assertThatThrownBy(() -> s.put(-1, json("{}"))).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> s.get(-5)).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> s.put(1, new byte[11])).isInstanceOf(IllegalArgumentException.class);
      assertThat(s.lastSequence()).isZero();
    }
  }

  @Test
  void anFsyncFailureStopsWritesButNotReads() throws IOException {
    io.docstore.io.FaultInjectingFileSystem fs = new io.docstore.io.FaultInjectingFileSystem();
    DocStoreOptions o =
        DocStoreOptions.builder(new OffHeapDocCache(64L << 20))
            .fileSystem(fs)
            .queueOptions(io.docstore.queue.QueueOptions.builder().fileSystem(fs).build())
            .indexOptions(
                IndexOptions.builder()
                    .fileSystem(fs)
                    .syncPolicy(io.docstore.io.SyncPolicy.NONE)
                    .build())
            .build();
    try (DocStore s = DocStore.open(dir, o)) {
      s.put(1, json("{\"a\":1}"));
      assertThat(s.stats()).containsEntry("writable", true);
      fs.failAfter(io.docstore.io.FaultInjectingFileSystem.Op.FORCE, 0);
      assertThatThrownBy(() -> s.put(2, json("{\"b\":2}"))).isInstanceOf(IOException.class);
      fs.clearFaults();
      assertThatThrownBy(() -> s.put(3, json("{}")))
          .as("sticky until restart")
          .isInstanceOf(IOException.class);
      assertThat(s.get(1).body()).isEqualTo(json("{\"a\":1}"));
      assertThat(s.get(2)).isNull();
      assertThat(s.stats()).containsEntry("writable", false).containsKey("writeError");
    } catch (IOException closeAfterFailure) {
      // close reports the failed final sync; the data directory is what the next open recovers
    }
    try (DocStore s = open(new OffHeapDocCache(64L << 20))) {
      assertThat(s.get(1).body()).isEqualTo(json("{\"a\":1}"));
      s.put(4, json("{\"d\":4}"));
      assertThat(s.get(4).body()).isEqualTo(json("{\"d\":4}"));
    }
  }

  @Test
  void aCheckpointAheadOfTheQueueMakesTheStoreRebuildItsIndexFromTheQueue() throws IOException {
    try (DocStore s = open(new OffHeapDocCache(64L << 20))) {
      s.put(1, json("{}"));
      s.put(2, json("{\"b\":2}"));
      s.delete(1);
    }
    io.docstore.service.store.IndexCheckpoint.publish(io.docstore.io.FileSystem.real(), dir, 5, 0);
    var registry = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    try (DocStore s =
        DocStore.open(
            dir,
            DocStoreOptions.builder(new OffHeapDocCache(64L << 20)).registry(registry).build())) {
      assertThat(s.get(1)).isNull();
      assertThat(s.get(2).body()).isEqualTo(json("{\"b\":2}"));
      assertThat(s.appliedThrough()).isEqualTo(3);
      assertThat(registry.get("docstore.index.rebuilt").gauge().value()).isEqualTo(1.0);
    }
    try (var entries = java.nio.file.Files.list(dir)) {
      assertThat(entries.filter(p -> p.getFileName().toString().startsWith("index.damaged-")))
          .hasSize(1);
    }
  }

  @Test
  void secondProcessCannotOpenTheSameDirectory() throws IOException {
    try (DocStore s = open(new OffHeapDocCache(64L << 20))) {
      assertThatThrownBy(() -> open(new OffHeapDocCache(64L << 20))).hasMessageContaining("in use");
    }
  }

  @Test
  void randomizedAgainstAModelAcrossRestarts() throws IOException {
    long seed = TestSupport.seed("DocStoreTest.randomized");
    Random rnd = new Random(seed);
    Map<Long, byte[]> model = new HashMap<>();
    for (int round = 0; round < 4; round++) {
      try (DocStore s = open(new OffHeapDocCache(64L << 20))) {
        for (Map.Entry<Long, byte[]> e : model.entrySet()) {
          assertThat(s.get(e.getKey())).as("seed %d id %d", seed, e.getKey()).isNotNull();
          assertThat(s.get(e.getKey()).body()).as("seed %d", seed).isEqualTo(e.getValue());
        }
        int ops = 300 * TestSupport.scale();
        for (int i = 0; i < ops; i++) {
          long id = rnd.nextInt(200);
          int kind = rnd.nextInt(10);
          if (kind < 6) {
            byte[] body = json("{\"id\":" + id + ",\"v\":" + rnd.nextLong() + "}");
            s.put(id, body);
            model.put(id, body);
          } else if (kind < 7) {
            s.delete(id);
            model.remove(id);
          } else if (kind < 8) {
            List<Update> batch = new ArrayList<>();
            for (int j = 0; j < 5; j++) {
              long bid = rnd.nextInt(200);
              byte[] body = json("{\"b\":" + rnd.nextInt() + "}");
              batch.add(Update.put(bid, body));
              model.put(bid, body);
            }
            s.apply(batch);
          } else {
            Document d = s.get(id);
            byte[] want = model.get(id);
            if (want == null) {
              assertThat(d).as("seed %d id %d", seed, id).isNull();
            } else {
              assertThat(d.body()).as("seed %d id %d", seed, id).isEqualTo(want);
            }
          }
        }
        if (round % 2 == 0) {
          s.checkpoint();
        }
      }
    }
  }

  @Test
  void concurrentWritersLeaveTheNewestVersionOfEveryId() throws Exception {
    ConcurrentHashMap<Long, Long> newest = new ConcurrentHashMap<>();
    ConcurrentHashMap<Long, byte[]> bodies = new ConcurrentHashMap<>();
    try (DocStore s = open(new OffHeapDocCache(64L << 20))) {
      ExecutorService pool = Executors.newFixedThreadPool(8);
      List<Future<?>> fs = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int thread = t;
        fs.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 200; i++) {
                    long id = i % 20;
                    byte[] body = json("{\"t\":" + thread + ",\"i\":" + i + "}");
                    Written w = s.put(id, body);
                    newest.merge(id, w.sequence(), Math::max);
                    if (newest.get(id) == w.sequence()) {
                      bodies.put(w.sequence(), body);
                    } else {
                      bodies.putIfAbsent(w.sequence(), body);
                    }
                    Document d = s.get(id);
                    assertThat(d.sequence()).isGreaterThanOrEqualTo(w.sequence());
                  }
                  return null;
                }));
      }
      for (Future<?> f : fs) {
        f.get();
      }
      pool.shutdown();
      for (long id = 0; id < 20; id++) {
        Document d = s.get(id);
        assertThat(d.sequence()).isEqualTo(newest.get(id));
        assertThat(d.body()).isEqualTo(bodies.get(d.sequence()));
      }
    }
  }

  @Test
  void indexMappingToAnotherIdsRecordIsCorruptionNeverAWrongDocument() throws IOException {
    try (DocStore s = open(new OffHeapDocCache(64L << 20))) {
      s.put(5, json("{\"five\":5}"));
      s.put(7, json("{\"seven\":7}"));
    }
    try (LsmIndex idx = LsmIndex.open(dir.resolve("index"), IndexOptions.builder().build())) {
      idx.put(5, idx.get(7));
      idx.sync();
    }
    try (DocStore s = open(new OffHeapDocCache(64L << 20))) {
      assertThatThrownBy(() -> s.get(5))
          .isInstanceOf(CorruptionException.class)
          .hasMessageContaining("id 7");
      assertThatThrownBy(() -> s.getAll(new long[] {7, 5})).isInstanceOf(CorruptionException.class);
      assertThat(s.get(7).body()).isEqualTo(json("{\"seven\":7}"));
    }
  }

  @Test
  void aDamagedIndexIsMovedAsideAndRebuiltFromTheQueueEvenAfterACrashMidMove() throws IOException {
    Map<Long, byte[]> model = new HashMap<>();
    Random rnd = new Random(TestSupport.seed("DocStoreTest.rebuild"));
    try (DocStore s = open(new OffHeapDocCache(64L << 20))) {
      for (int i = 0; i < 2_000; i++) {
        long id = rnd.nextInt(500);
        if (rnd.nextInt(10) == 0) {
          s.delete(id);
          model.remove(id);
        } else {
          byte[] body = json("{\"i\":" + i + "}");
          s.put(id, body);
          model.put(id, body);
        }
      }
    }
    // The MANIFEST damaged, and a crash after the checkpoint was moved aside but before the index
    // was.
    Path manifest = dir.resolve("index").resolve(io.docstore.index.file.FileNames.MANIFEST);
    byte[] m = java.nio.file.Files.readAllBytes(manifest);
    m[m.length / 2] ^= 0x01;
    java.nio.file.Files.write(manifest, m);
    java.nio.file.Files.delete(dir.resolve("index.checkpoint"));

    for (int round = 0; round < 2; round++) {
      try (DocStore s = open(new OffHeapDocCache(64L << 20))) {
        for (long id = 0; id < 500; id++) {
          Document d = s.get(id);
          if (model.containsKey(id)) {
            assertThat(d).as("id %d", id).isNotNull();
            assertThat(d.body()).as("id %d", id).isEqualTo(model.get(id));
          } else {
            assertThat(d).as("id %d", id).isNull();
          }
        }
        s.put(1_000, json("{\"after\":" + round + "}"));
        model.put(1_000L, json("{\"after\":" + round + "}"));
      }
    }
    try (var entries = java.nio.file.Files.list(dir)) {
      assertThat(entries.filter(p -> p.getFileName().toString().startsWith("index.damaged-")))
          .as("moved aside once; the rebuilt index opens cleanly the second time")
          .hasSize(1);
    }
  }
}
