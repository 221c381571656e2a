package io.docstore.service.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.index.IndexOptions;
import io.docstore.index.LsmIndex;
import io.docstore.queue.Op;
import io.docstore.queue.QueueRecord;
import io.docstore.queue.RecordBody;
import io.docstore.queue.format.Address;
import io.docstore.service.cache.OffHeapDocCache;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What each record kind does to the index and the cache, RELOCATED and DROPPED by compare-and-set:
 * checked against a model (a {@code HashMap} of each ID's current record) over random writes,
 * deletes, relocations of current and of stale versions, and drops, in batches of random sizes (so
 * a relocation and a newer write of its ID often share a batch).
 */
class RecordBatchTest {

  @TempDir Path dir;

  private long next = 1;

  private static final byte[] DOC = "{}".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  /** A record at a fresh address (segment 1, one record per block offset). */
  private QueueRecord record(long id, Op op, byte[] body) {
    long seq = next++;
    return new QueueRecord(Address.of(1, 44 + seq * 64, 0), id, seq, op, 0, body);
  }

  private QueueRecord relocated(QueueRecord original) {
    Op op = original.op() == Op.RELOCATED ? original.originalOp() : original.op();
    byte[] doc = original.document();
    return record(
        original.id(),
        Op.RELOCATED,
        RecordBody.relocated(
            original.version(),
            original.address(),
            op,
            original.expiresAtMillis(),
            ByteBuffer.wrap(doc),
            0,
            doc.length));
  }

  @Test
  void relocationsAndDropsNeverUndoANewerWriteAndFollowTheCurrentVersion() throws Exception {
    for (long seed = 1; seed <= 20; seed++) {
      Random rnd = new Random(seed);
      Path at = dir.resolve("seed-" + seed);
      try (LsmIndex index = LsmIndex.open(at, IndexOptions.defaults());
          OffHeapDocCache cache = new OffHeapDocCache(8L << 20)) {
        RecordBatch batch = new RecordBatch(64);
        Map<Long, QueueRecord> current = new HashMap<>(); // the model: null = deleted / absent
        List<QueueRecord> history = new ArrayList<>(); // every record that stored a document
        List<QueueRecord> all = new ArrayList<>(); // the queue
        for (int round = 0; round < 200; round++) {
          int n = 1 + rnd.nextInt(64);
          List<QueueRecord> records = new ArrayList<>();
          for (int i = 0; i < n; i++) {
            long id = rnd.nextInt(20);
            int kind = rnd.nextInt(10);
            QueueRecord r;
            if (kind < 4 || history.isEmpty()) {
              r = record(id, Op.PUT, DOC);
            } else if (kind < 5) {
              r = record(id, Op.DELETE, new byte[0]);
            } else if (kind < 9) {
              // A relocation of the current version (as the space reclamation makes them), or of
              // a stale one (which must lose).
              QueueRecord cur = current.get(id);
              r =
                  relocated(
                      cur != null && rnd.nextInt(4) != 0
                          ? cur
                          : history.get(rnd.nextInt(history.size())));
            } else {
              QueueRecord victim = history.get(rnd.nextInt(history.size()));
              r =
                  record(
                      victim.id(),
                      Op.DROPPED,
                      RecordBody.dropped(victim.version(), victim.address()));
            }
            records.add(r);
            all.add(r);
            // The model, in sequence order.
            QueueRecord cur = current.get(r.id());
            switch (r.op()) {
              case PUT -> current.put(r.id(), r);
              case DELETE -> current.remove(r.id());
              case RELOCATED -> {
                if (cur != null && cur.address() == r.originalAddress()) {
                  current.put(r.id(), r);
                }
              }
              case DROPPED -> {
                if (cur != null && cur.address() == r.originalAddress()) {
                  current.remove(r.id());
                }
              }
              default -> throw new AssertionError(r.op());
            }
            if (r.stores()) {
              history.add(r);
            }
          }
          for (int i = 0; i < n; i++) {
            batch.set(i, records.get(i));
          }
          batch.apply(n, index, null);
          batch.ingested(cache, n, r -> {});
          for (long id = 0; id < 20; id++) {
            QueueRecord want = current.get(id);
            long got = index.get(id);
            assertThat(got)
                .as("seed %d round %d id %d", seed, round, id)
                .isEqualTo(want == null ? got < 0 ? got : -1 : want.address());
            var cached = cache.get(id);
            if (cached != null && !cached.deleted()) {
              // The cache never holds a version the index has moved past.
              assertThat(want).as("seed %d round %d id %d cached", seed, round, id).isNotNull();
              assertThat(cached.sequence()).isEqualTo(want.version());
            }
          }
        }
        rebuildWithoutGarbageAgrees(seed, rnd, all, current);
      }
    }
  }

  /**
   * A rebuild from the queue's first record, with a random share of the garbage gone (as the space
   * reclamation leaves it: versions no longer current, and copies of the current version that a
   * later copy replaced; never deletes), reaches the same index: relocated copies win by version
   * where their originals are gone.
   */
  private void rebuildWithoutGarbageAgrees(
      long seed, Random rnd, List<QueueRecord> all, Map<Long, QueueRecord> current)
      throws Exception {
    Map<Long, Long> versionAt = new HashMap<>();
    List<QueueRecord> kept = new ArrayList<>();
    for (QueueRecord r : all) {
      versionAt.put(r.address(), r.version());
      QueueRecord cur = current.get(r.id());
      boolean garbage =
          r.stores()
              && (cur == null
                  || cur.version() != r.version()
                  || cur.sequence() > r.sequence()); // a later copy of the same version lives
      if (!(garbage && rnd.nextBoolean())) {
        kept.add(r);
      }
    }
    try (LsmIndex index = LsmIndex.open(dir.resolve("rebuilt-" + seed), IndexOptions.defaults());
        OffHeapDocCache cache = new OffHeapDocCache(8L << 20)) {
      RecordBatch batch = new RecordBatch(64);
      batch.rebuilding(versionAt::get);
      for (int from = 0; from < kept.size(); from += 64) {
        int n = Math.min(64, kept.size() - from);
        for (int i = 0; i < n; i++) {
          batch.set(i, kept.get(from + i));
        }
        batch.apply(n, index, null);
        batch.ingested(cache, n, r -> {});
      }
      for (long id = 0; id < 20; id++) {
        QueueRecord want = current.get(id);
        long got = index.get(id);
        if (want == null) {
          assertThat(got).as("seed %d rebuilt id %d", seed, id).isNegative();
        } else {
          assertThat(got >= 0 ? versionAt.get(got) : -1)
              .as("seed %d rebuilt id %d: version", seed, id)
              .isEqualTo(want.version());
        }
        var cached = cache.get(id);
        if (cached != null && !cached.deleted()) {
          assertThat(want).as("seed %d rebuilt id %d cached", seed, id).isNotNull();
          assertThat(cached.sequence()).isEqualTo(want.version());
        }
      }
    }
  }
}
