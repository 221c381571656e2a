package io.docstore.service.gc;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.SyncPolicy;
import io.docstore.queue.QueueOptions;
import io.docstore.queue.tools.QueueVerifier;
import io.docstore.service.DocStore;
import io.docstore.service.DocStoreOptions;
import io.docstore.service.Update;
import io.docstore.service.cache.OffHeapDocCache;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The space reclamation against a model (a {@code HashMap} of each ID's current document and
 * expiry): random puts, deletes and expiring puts, reclamation passes, restarts and full index
 * rebuilds, replayed by seed. After every step each ID reads as the model says (nothing lost,
 * nothing resurrected), the queue verifies, and the passes give space back.
 */
class SpaceReclaimerTest {

  @TempDir Path dir;

  private static final int IDS = 300;

  private static DocStoreOptions options() {
    return options(1000);
  }

  /**
   * Options whose queue trains its dictionary from the first {@code dictionarySamples} bodies
   * (records compressed one by one with it from then on, and copied as stored when relocated).
   */
  private static DocStoreOptions options(int dictionarySamples) {
    return DocStoreOptions.builder(new OffHeapDocCache(4L << 20))
        .queueOptions(
            QueueOptions.builder()
                .syncPolicy(SyncPolicy.NONE)
                .segmentSize(32 << 10)
                .blockSize(4096)
                .dictionarySamples(dictionarySamples)
                .dictionaryBytes(4096)
                .build())
        .gc(GcOptions.defaults().withEnabled(false).withReserveBytes(0))
        .checkpointInterval(Duration.ofHours(1))
        .build();
  }

  /** The model's view of one ID: its body and expiry (0: never), null when deleted or absent. */
  private record Version(byte[] body, long expiresAt) {}

  private static final String[] WORDS = {
    "senior", "engineer", "remote", "storage", "salary", "benefits", "team", "hiring", "the", "and"
  };

  /**
   * A document with a random pad: of 16 letters (LZ4 cannot shrink such blocks, no dictionary is
   * trained from them, and segments fill fast) or, {@code compressible}, of words.
   */
  private static byte[] body(Random rnd, long id, int round, boolean compressible) {
    byte[] pad = new byte[200 + rnd.nextInt(400)];
    rnd.nextBytes(pad);
    StringBuilder sb = new StringBuilder("{\"id\":" + id + ",\"round\":" + round + ",\"pad\":\"");
    for (byte b : pad) {
      if (compressible) {
        sb.append(WORDS[(b & 0xff) % WORDS.length]).append(' ');
      } else {
        sb.append((char) ('a' + (b & 15)));
      }
    }
    return sb.append("\"}").toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  }

  @Test
  void nothingIsLostOrResurrectedAcrossPassesRestartsAndRebuilds() throws Exception {
    for (long seed = 1; seed <= 3; seed++) {
      run(seed, dir.resolve("seed-" + seed), false);
    }
  }

  /**
   * The same with documents a dictionary compresses: relocated records copy the documents' stored
   * bytes instead of compressing them again.
   */
  @Test
  void nothingIsLostOrResurrectedWhenRelocationsCopyCompressedBodies() throws Exception {
    for (long seed = 4; seed <= 5; seed++) {
      run(seed, dir.resolve("seed-" + seed), true);
    }
  }

  private void run(long seed, Path at, boolean compressible) throws Exception {
    Random rnd = new Random(seed);
    Map<Long, Version> model = new HashMap<>();
    DocStoreOptions options = options(compressible ? 100 : 1000);
    DocStore store = DocStore.open(at, options);
    long reclaimed = 0;
    try {
      for (int round = 0; round < 40; round++) {
        List<Update> batch = new ArrayList<>();
        long now = System.currentTimeMillis();
        for (int i = 0; i < 60; i++) {
          long id = rnd.nextInt(IDS);
          int kind = rnd.nextInt(10);
          if (kind < 5) {
            byte[] b = body(rnd, id, round, compressible);
            batch.add(Update.put(id, b));
            model.put(id, new Version(b, 0));
          } else if (kind < 7) {
            byte[] b = body(rnd, id, round, compressible);
            // Some expire during the test, some long after it.
            long expires = now + (rnd.nextBoolean() ? 50 + rnd.nextInt(400) : 3_600_000);
            batch.add(Update.put(id, b, expires));
            model.put(id, new Version(b, expires));
          } else {
            batch.add(Update.delete(id));
            model.remove(id);
          }
        }
        store.apply(batch);
        switch (rnd.nextInt(6)) {
          case 0, 1, 2 -> {
            store.checkpoint();
            // Often a short pass (a segment or two), so that old segments stay around, holding
            // versions a dropped delete would let show through.
            SpaceReclaimer.Pass p =
                store.reclamation().run(1.0, rnd.nextInt(3) == 0 ? Long.MAX_VALUE : 1);
            reclaimed += p.bytesReclaimed();
          }
          case 3 -> {
            store.close();
            store = DocStore.open(at, options);
          }
          case 4 -> {
            store.close();
            store = DocStore.openRebuildingIndex(at, options);
          }
          default -> {}
        }
        check(seed, round, store, model);
      }
      store.close();
      assertThat(QueueVerifier.verify(at.resolve("queue"))).as("seed %d verify", seed).isEmpty();
      store = DocStore.openRebuildingIndex(at, options);
      check(seed, -1, store, model);
      assertThat(reclaimed).as("seed %d: bytes reclaimed", seed).isPositive();
    } finally {
      store.close();
    }
  }

  private static void check(long seed, int round, DocStore store, Map<Long, Version> model)
      throws Exception {
    long now = System.currentTimeMillis();
    long[] ids = new long[IDS];
    for (int id = 0; id < IDS; id++) {
      ids[id] = id;
    }
    var all = store.getAll(ids);
    long after = System.currentTimeMillis();
    for (int id = 0; id < IDS; id++) {
      Version v = model.get((long) id);
      var got = all[id];
      if (v != null && v.expiresAt() != 0 && v.expiresAt() > now && v.expiresAt() <= after) {
        continue; // expired while being read: either answer is right
      }
      boolean live = v != null && (v.expiresAt() == 0 || v.expiresAt() > now);
      if (live) {
        assertThat(got).as("seed %d round %d id %d lost", seed, round, id).isNotNull();
        assertThat(Arrays.equals(got.body(), v.body()))
            .as("seed %d round %d id %d: an older version", seed, round, id)
            .isTrue();
      } else {
        assertThat(got).as("seed %d round %d id %d resurrected", seed, round, id).isNull();
      }
    }
  }

  /**
   * The delete rule: a delete whose ID still has an older version in another segment is kept when
   * its own segment is reclaimed (else a rebuild would bring the older version back); once no other
   * segment holds the ID, it is dropped.
   */
  @Test
  void aDeleteStaysWhileAnOlderVersionMayShowThrough() throws Exception {
    Random rnd = new Random(7);
    try (DocStore store = DocStore.open(dir, options())) {
      store.apply(List.of(Update.put(1, body(rnd, 1, 0, false))));
      long filler = 1000;
      while (store.queueSegments().size() < 4) {
        store.apply(List.of(Update.put(filler, body(rnd, filler++, 0, false))));
      }
      store.apply(List.of(Update.delete(1)));
      long deleteSegment = store.queueSegments().get(store.queueSegments().size() - 1).number();
      while (store.queueSegments().size() < deleteSegment + 3) {
        store.apply(List.of(Update.put(filler, body(rnd, filler++, 0, false))));
      }
      store.checkpoint();
      SpaceReclaimer gc = store.reclamation().reclaimer();
      long before = gc.recordsRelocated();
      assertThat(gc.reclaimSegment(deleteSegment)).isTrue();
      // Kept: segment 1 still holds the first version of document 1.
      assertThat(gc.recordsRelocated() - before).isGreaterThanOrEqualTo(1);
    }
    try (DocStore store = DocStore.openRebuildingIndex(dir, options())) {
      assertThat(store.get(1)).as("resurrected by a rebuild").isNull();
      SpaceReclaimer gc = store.reclamation().reclaimer();
      store.checkpoint();
      assertThat(gc.reclaimSegment(1)).isTrue(); // the old version goes (garbage)
    }
    try (DocStore store = DocStore.openRebuildingIndex(dir, options())) {
      assertThat(store.get(1)).as("resurrected by a rebuild").isNull();
    }
  }

  /**
   * A filling disk: below the reserve a pass does not start; a disk that fills during the
   * relocation stops the pass with the victim whole, the store keeps serving every document, and
   * once space is freed writes and the reclamation go on.
   */
  @Test
  void aFullDiskStopsThePassCleanlyAndTheStoreKeepsServing() throws Exception {
    io.docstore.io.FaultInjectingFileSystem fs = new io.docstore.io.FaultInjectingFileSystem();
    DocStoreOptions o =
        DocStoreOptions.builder(new OffHeapDocCache(4L << 20))
            .fileSystem(fs)
            .queueOptions(
                QueueOptions.builder()
                    .fileSystem(fs)
                    .syncPolicy(SyncPolicy.NONE)
                    .segmentSize(32 << 10)
                    .blockSize(4096)
                    .build())
            .indexOptions(
                io.docstore.index.IndexOptions.builder()
                    .fileSystem(fs)
                    .syncPolicy(SyncPolicy.NONE)
                    .build())
            .gc(GcOptions.defaults().withEnabled(false).withReserveBytes(1 << 20))
            .checkpointInterval(Duration.ofHours(1))
            .build();
    Random rnd = new Random(11);
    Map<Long, Version> model = new HashMap<>();
    try (DocStore store = DocStore.open(dir, o)) {
      for (int round = 0; round < 6; round++) {
        List<Update> batch = new ArrayList<>();
        // IDs 100 to 159 are written once: the oldest segments hold live records to relocate.
        for (long id = round == 0 ? 100 : 0; id < (round == 0 ? 160 : 60); id++) {
          byte[] b = body(rnd, id, round, false);
          batch.add(Update.put(id, b));
          model.put(id, new Version(b, 0));
        }
        store.apply(batch);
      }
      store.checkpoint();
      Reclamation gc = store.reclamation();

      fs.setSpaceLimit((1 << 20) - 1); // below the reserve: no pass starts
      SpaceReclaimer.Pass p = gc.run(1.0, Long.MAX_VALUE);
      assertThat(p.segments()).isZero();
      assertThat(p.stop()).contains("reserve");

      // Full during the relocation: the pass fails, nothing is lost, reads go on.
      GcOptions noReserve = GcOptions.defaults().withEnabled(false).withReserveBytes(0);
      {
        fs.setSpaceLimit(3000);
        SpaceReclaimer tight = new SpaceReclaimer(gc.reclaimer().store(), noReserve);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> tight.pass(1.0, Long.MAX_VALUE))
            .isInstanceOf(java.io.IOException.class);
      }
      check(11, -2, store, model);
      fs.clearSpaceLimit();
      byte[] after = body(rnd, 5, 99, false);
      store.apply(List.of(Update.put(5, after)));
      model.put(5L, new Version(after, 0));
      store.checkpoint();
      SpaceReclaimer freed = new SpaceReclaimer(gc.reclaimer().store(), noReserve);
      assertThat(freed.pass(1.0, Long.MAX_VALUE).bytesReclaimed()).isPositive();
      check(11, -3, store, model);
    }
    try (DocStore store = DocStore.openRebuildingIndex(dir, o)) {
      check(11, -4, store, model);
    }
    assertThat(QueueVerifier.verify(dir.resolve("queue"))).isEmpty();
  }

  /**
   * Documents that expire and are never overwritten: once every version in a segment has expired,
   * the segment is reclaimed although the index still points into it (DROPPED records turn those
   * entries into tombstones), both for segments written since the store opened and for older ones
   * (scanned once).
   */
  @Test
  void segmentsWhoseVersionsAllExpiredAreReclaimed() throws Exception {
    Random rnd = new Random(13);
    long filler = 100_000;
    long expires;
    try (DocStore store = DocStore.open(dir, options())) {
      expires = System.currentTimeMillis() + 1500;
      for (long id = 0; id < 300; id++) {
        store.apply(List.of(Update.put(id, body(rnd, id, 0, false), expires)));
      }
      int segments = store.queueSegments().size();
      while (store.queueSegments().size() < segments + 3) {
        store.apply(List.of(Update.put(filler, body(rnd, filler++, 0, false))));
      }
      sleepPast(expires);
      store.checkpoint();
      SpaceReclaimer.Pass p = store.reclamation().run(1.3, Long.MAX_VALUE);
      assertThat(p.segments()).as("segments of expired versions reclaimed: %s", p).isPositive();
      for (long id = 0; id < 300; id++) {
        assertThat(store.get(id)).as("expired %d", id).isNull();
      }
      assertThat(store.get(filler - 1)).isNotNull();
      // More expiring documents, left for the next open to find.
      expires = System.currentTimeMillis() + 1500;
      for (long id = 1000; id < 1300; id++) {
        store.apply(List.of(Update.put(id, body(rnd, id, 1, false), expires)));
      }
      segments = store.queueSegments().size();
      while (store.queueSegments().size() < segments + 3) {
        store.apply(List.of(Update.put(filler, body(rnd, filler++, 1, false))));
      }
    }
    sleepPast(expires);
    try (DocStore store = DocStore.open(dir, options())) {
      // Each pass scans a few segments it has not seen yet (the background runs one per interval).
      int reclaimed = 0;
      for (int pass = 0; pass < 10 && reclaimed == 0; pass++) {
        reclaimed = store.reclamation().run(1.3, Long.MAX_VALUE).segments();
      }
      assertThat(reclaimed)
          .as("segments written before this open, scanned for their expiries")
          .isPositive();
      for (long id = 1000; id < 1300; id++) {
        assertThat(store.get(id)).as("expired %d", id).isNull();
      }
    }
    try (DocStore store = DocStore.openRebuildingIndex(dir, options())) {
      for (long id : new long[] {0, 299, 1000, 1299}) {
        assertThat(store.get(id)).as("expired %d after a rebuild", id).isNull();
      }
      assertThat(store.get(filler - 1)).isNotNull();
    }
    assertThat(QueueVerifier.verify(dir.resolve("queue"))).isEmpty();
  }

  /**
   * Records appended as LZ4 blocks while the store caught up are copied into blocks of the queue's
   * dictionary once it has: not while LZ4 appends are on; then by passes of a store that wrote them
   * (it knows their segments), and of one reopened (it reads their block headers); with no garbage
   * at all, the passes give back what recompression saves, and every document reads as written.
   */
  @Test
  void recordsAppendedAsLz4WhileCatchingUpAreRecompressedOnceCaughtUp() throws Exception {
    Random rnd = new Random(17);
    Map<Long, byte[]> model = new HashMap<>();
    long id = 0;
    try (DocStore store = DocStore.open(dir, options(50))) {
      for (; id < 100; id++) { // trains the dictionary
        model.put(id, body(rnd, id, 0, true));
        store.apply(List.of(Update.put(id, model.get(id))));
      }
      store.lz4Appends(true);
      for (; id < 700; id++) {
        model.put(id, body(rnd, id, 0, true));
        store.apply(List.of(Update.put(id, model.get(id))));
      }
      store.checkpoint();
      assertThat(store.reclamation().run(1.3, Long.MAX_VALUE).segments())
          .as("segments reclaimed while LZ4 appends are on (no garbage)")
          .isZero();
      store.lz4Appends(false);
      int segments = store.queueSegments().size();
      while (store.queueSegments().size() < segments + 2) {
        model.put(id, body(rnd, id, 0, true));
        store.apply(List.of(Update.put(id, model.get(id))));
        id++;
      }
      store.checkpoint();
      long before = stored(store);
      SpaceReclaimer.Pass p = store.reclamation().run(1.3, 200 << 10);
      assertThat(p.segments()).as("segments recompressed: %s", p).isPositive();
      assertThat(before - stored(store))
          .as("bytes given back, of the segments' %s", p)
          .isGreaterThan(p.bytesReclaimed() / 4);
      checkAll(store, model, "after recompressing in the writing store");
      store.lz4Appends(true); // more for the reopened store to find
      for (; id < 1300; id++) {
        model.put(id, body(rnd, id, 1, true));
        store.apply(List.of(Update.put(id, model.get(id))));
      }
      store.lz4Appends(false);
      segments = store.queueSegments().size();
      while (store.queueSegments().size() < segments + 2) {
        model.put(id, body(rnd, id, 1, true));
        store.apply(List.of(Update.put(id, model.get(id))));
        id++;
      }
      store.checkpoint();
    }
    try (DocStore store = DocStore.open(dir, options(50))) {
      long before = stored(store);
      int recompressed = 0;
      for (int pass = 0; pass < 40; pass++) { // each pass reads a few segments' headers
        recompressed += store.reclamation().run(1.3, Long.MAX_VALUE).segments();
      }
      assertThat(recompressed).as("segments written before this open, recompressed").isPositive();
      assertThat(stored(store)).isLessThan(before * 3 / 4);
      assertThat(store.reclamation().run(1.3, Long.MAX_VALUE).segments())
          .as("nothing left to recompress")
          .isZero();
      checkAll(store, model, "after recompressing in a reopened store");
    }
    assertThat(QueueVerifier.verify(dir.resolve("queue"))).isEmpty();
  }

  /** Bytes of blocks in the queue's segments. */
  private static long stored(DocStore store) {
    return store.queueSegments().stream()
        .mapToLong(io.docstore.queue.SegmentSummary::blockBytes)
        .sum();
  }

  private static void checkAll(DocStore store, Map<Long, byte[]> model, String when)
      throws Exception {
    for (Map.Entry<Long, byte[]> e : model.entrySet()) {
      assertThat(store.get(e.getKey()).body())
          .as("%d %s", e.getKey(), when)
          .isEqualTo(e.getValue());
    }
  }

  private static void sleepPast(long epochMillis) throws InterruptedException {
    long wait;
    while ((wait = epochMillis - System.currentTimeMillis()) >= 0) {
      Thread.sleep(wait + 1);
    }
  }
}
