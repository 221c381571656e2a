package io.docstore.service.store;

import io.docstore.index.LsmIndex;
import io.docstore.queue.Op;
import io.docstore.queue.QueueRecord;
import io.docstore.service.cache.DocCache;
import java.io.IOException;
import java.util.Arrays;

/**
 * A batch of queue records on its way into an index and a cache: the one place where a record kind
 * becomes an index entry, shared by the primary's {@link Indexer} and a replica's ingester.
 *
 * <ul>
 *   <li>PUT and PUT_EXPIRING map the ID to the record's address; DELETE to a tombstone.
 *   <li>RELOCATED maps the ID to the record's address, and DROPPED to a tombstone, only if the
 *       index (or an earlier record of the batch) still maps the ID to the record's original
 *       address: compare-and-set, so a newer version written before the space reclamation's copy
 *       reached the index is never undone (docs/design/space-reclamation.md).
 *   <li>While {@linkplain #rebuilding() rebuilding} an index from the queue's first record, the
 *       originals of relocated records may be gone (their segments reclaimed), so compare-and-set
 *       is not enough: a RELOCATED record also applies when what the index holds is an older
 *       version than its original sequence, and a DROPPED one when it is not newer. The versions
 *       are read back from the queue ({@link Versions}) and, for tombstones, kept here while
 *       rebuilding (a map entry per deleted ID).
 * </ul>
 *
 * Not thread-safe; one per ingesting thread. Nothing is allocated per batch.
 */
public final class RecordBatch {

  private final long[] ids;
  private final long[] values;
  private final QueueRecord[] records;

  /** What each entry replaces (valid after {@link #resolve} with {@code withPrevious}). */
  private final long[] previous;

  /** Whether each record took effect (false for a RELOCATED or DROPPED one that lost). */
  private final boolean[] applied;

  /**
   * The batch's IDs seen so far and their newest value, so a second record of an ID in one batch
   * replaces the first, not what the index held before the batch: open addressing, reset by a new
   * stamp per batch.
   */
  private final long[] seenIds;

  private final long[] seenValues;
  private final int[] seenStamps;
  private int stamp;
  private final int seenMask;

  /** Reads the version of the record at an address (for rebuilds). */
  @FunctionalInterface
  public interface Versions {
    long versionAt(long address) throws IOException;
  }

  /** Non-null while rebuilding: the queue's versions, and the version of each tombstone. */
  private Versions versions;

  private java.util.HashMap<Long, Long> deletedAt;

  public RecordBatch(int capacity) {
    ids = new long[capacity];
    values = new long[capacity];
    records = new QueueRecord[capacity];
    previous = new long[capacity];
    applied = new boolean[capacity];
    int seen = Integer.highestOneBit(Math.max(16, capacity * 4) - 1) << 1;
    seenIds = new long[seen];
    seenValues = new long[seen];
    seenStamps = new int[seen];
    seenMask = seen - 1;
  }

  /**
   * Rebuilding an index from the queue's first record: from now until {@link #live}, RELOCATED and
   * DROPPED records are judged by version (see the class comment).
   */
  public void rebuilding(Versions versions) {
    this.versions = versions;
    this.deletedAt = new java.util.HashMap<>();
  }

  /** Back to compare-and-set alone (the index has caught up with the queue). */
  public void live() {
    versions = null;
    deletedAt = null;
  }

  /** Whether RELOCATED and DROPPED records are judged by version. */
  public boolean rebuilding() {
    return versions != null;
  }

  /** Forgets every record of the batch. */
  public void clear() {
    Arrays.fill(records, null);
  }

  /** Puts {@code r} at position {@code i} of the batch. */
  public void set(int i, QueueRecord r) {
    records[i] = r;
  }

  /**
   * Puts records {@code [0, n)} into {@code index} (on failure the batch is unchanged and can be
   * applied again), and counts what they replace in {@code liveRecords} unless it is null.
   */
  public void apply(int n, LsmIndex index, LiveRecords liveRecords) throws IOException {
    resolve(n, index, liveRecords != null);
    index.putAll(ids, values, n);
    if (liveRecords != null) {
      liveRecords.replaced(previous, values, n);
    }
  }

  /**
   * Fills {@link #ids} and {@link #values} for records {@code [0, n)}; with {@code withPrevious}
   * also {@link #previous} (one index lookup per distinct ID). RELOCATED and DROPPED records always
   * look up what they would replace.
   */
  private void resolve(int n, LsmIndex index, boolean withPrevious) throws IOException {
    boolean conditional = false;
    for (int i = 0; i < n; i++) {
      QueueRecord r = records[i];
      ids[i] = r.id();
      Op op = r.op();
      conditional |= op == Op.RELOCATED || op == Op.DROPPED;
      applied[i] = true;
      values[i] =
          op == Op.DELETE || op == Op.DROPPED || (op == Op.RELOCATED && !r.stores())
              ? LsmIndex.DELETED
              : r.address();
    }
    if (withPrevious || conditional || versions != null) {
      lookUpPrevious(n, index);
    }
  }

  private void lookUpPrevious(int n, LsmIndex index) throws IOException {
    if (++stamp == 0) {
      Arrays.fill(seenStamps, 0);
      stamp = 1;
    }
    for (int i = 0; i < n; i++) {
      long id = ids[i];
      int slot = (int) (mix(id) & seenMask);
      while (seenStamps[slot] == stamp && seenIds[slot] != id) {
        slot = (slot + 1) & seenMask;
      }
      if (seenStamps[slot] == stamp) {
        previous[i] = seenValues[slot];
      } else {
        previous[i] = index.get(id);
        seenStamps[slot] = stamp;
        seenIds[slot] = id;
      }
      QueueRecord r = records[i];
      Op op = r.op();
      boolean takes = true;
      if (op == Op.RELOCATED || op == Op.DROPPED) {
        takes = previous[i] == r.originalAddress() || newerThanIndexed(r, previous[i]);
        if (!takes) {
          // The ID was written, deleted or relocated since: leave its entry as it is.
          values[i] = previous[i] >= 0 ? previous[i] : LsmIndex.DELETED;
        }
      }
      applied[i] = takes;
      if (deletedAt != null && takes && values[i] == LsmIndex.DELETED) {
        deletedAt.put(id, r.version()); // a tombstone set now, at this version
      }
      seenValues[slot] = values[i];
    }
  }

  /**
   * While rebuilding: whether RELOCATED or DROPPED record {@code r} is to replace {@code indexed}
   * (what the index holds for its ID) by version. Always false when live: there, an ID whose entry
   * is not the original address was written or deleted after the original (the space reclamation
   * relocates only what the index points at).
   */
  private boolean newerThanIndexed(QueueRecord r, long indexed) throws IOException {
    if (versions == null) {
      return false;
    }
    long held;
    if (indexed >= 0) {
      held = versions.versionAt(indexed);
    } else {
      Long d = deletedAt.get(r.id());
      held = d == null ? -1 : d; // absent: nothing older can show through
    }
    long v = r.version();
    return r.op() == Op.RELOCATED ? held < v : held <= v;
  }

  /**
   * The cache's side of records {@code [0, n)} once they are in the index: a new version or a
   * tombstone per write, and per RELOCATED or DROPPED record that took effect (the same version a
   * reader saw for a live relocation; while rebuilding, it may replace an older one). Clears the
   * batch.
   *
   * @param writes called with each record that is a user's write (not a relocation), e.g. for
   *     freshness
   */
  public void ingested(DocCache cache, int n, java.util.function.Consumer<QueueRecord> writes) {
    for (int i = 0; i < n; i++) {
      QueueRecord r = records[i];
      Op op = r.op();
      if (op == Op.DROPPED || op == Op.RELOCATED) {
        if (applied[i]) {
          if (values[i] == LsmIndex.DELETED) {
            cache.setDeleted(r.id(), r.version());
          } else if (versions != null) { // live, the cache holds this very version already
            cache.set(r.id(), r.version(), r.document(), r.expiresAtMillis());
          }
        }
      } else {
        CachedReads.ingested(cache, r);
        writes.accept(r);
      }
      records[i] = null;
    }
  }

  private static long mix(long id) {
    long h = id * 0x9E3779B97F4A7C15L;
    return h ^ (h >>> 29);
  }
}
