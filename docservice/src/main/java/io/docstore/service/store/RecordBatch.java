package io.docstore.service.store;

import io.docstore.index.LsmIndex;
import io.docstore.queue.Op;
import io.docstore.queue.QueueRecord;
import io.docstore.queue.RecordBody;
import io.docstore.service.cache.DocCache;
import java.io.IOException;
import java.nio.ByteBuffer;
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
 *   <li>With {@linkplain #groups field groups}, a document's projections live under its group key
 *       ({@link GroupKeys}): a GROUPS record written with its document is taken only together with
 *       the PUT or PUT_EXPIRING that follows it (same ID, next sequence), in the same entry list,
 *       so a write torn by a crash between the two leaves both as they were; a PUT without one, a
 *       DELETE and a DROPPED record take the projections away too; a re-projection (GROUPS kind 1)
 *       applies only while the version it was projected from is current; a relocated GROUPS record
 *       is compare-and-set on the group key, as above.
 *   <li>A SOURCE record (where a run of records came from in the update log) maps its partition's
 *       source key ({@link SourceKeys}) to itself, like a put; the cache never holds it.
 * </ul>
 *
 * Not thread-safe; one per ingesting thread. Nothing is allocated per batch but the entries of a
 * batch's projections.
 */
public final class RecordBatch {

  /** An entry that applies whatever the index holds. */
  private static final long ALWAYS = -1;

  /** An entry of a re-projection: applies while its source version is current. */
  private static final long REPROJECTED = -2;

  private final QueueRecord[] records;

  // The batch's index entries, in order (up to two per record: its ID and its group key).
  private final long[] keys;
  private final long[] values;

  /** What each entry replaces (valid after {@link #resolve} with {@code withPrevious}). */
  private final long[] previous;

  /** Per entry: {@link #ALWAYS}, {@link #REPROJECTED}, or the original address to compare with. */
  private final long[] expected;

  /** Per entry: the record whose address or tombstone it is. */
  private final QueueRecord[] sources;

  private final boolean[] taken;

  /** Per entry that sets a tombstone: the version it stands at. */
  private final long[] tombstoneVersions;

  private int entries;

  /**
   * The batch's keys seen so far and their newest value, so a second entry of a key in one batch
   * replaces the first, not what the index held before the batch: open addressing, reset by a new
   * stamp per batch.
   */
  private final long[] seenIds;

  private final long[] seenValues;
  private final int[] seenStamps;
  private int stamp;
  private final int seenMask;

  /** Reads the version of the record at an address (for rebuilds and re-projections). */
  @FunctionalInterface
  public interface Versions {
    long versionAt(long address) throws IOException;
  }

  /** Non-null while rebuilding: the queue's versions, and the version of each tombstone. */
  private Versions versions;

  private java.util.HashMap<Long, Long> deletedAt;

  /** Told of every record once it is in the index and the cache; null for none. */
  private VisiblePositions positions;

  /** Whether the store has field groups: its writes then set or clear group keys. */
  private boolean groups;

  /** The queue's versions, for re-projections (with groups). */
  private Versions current;

  /**
   * A GROUPS record written with its document that the previous batch ended with: the next record
   * commits it. {@link #groupsAfter} is what this batch leaves, taken over once it is applied.
   */
  private QueueRecord groupsBefore;

  private QueueRecord groupsAfter;

  /** GROUPS records not followed by their document (writes torn by a crash), since start. */
  private long tornGroups;

  public RecordBatch(int capacity) {
    records = new QueueRecord[capacity];
    int max = capacity * 2;
    keys = new long[max];
    values = new long[max];
    previous = new long[max];
    expected = new long[max];
    sources = new QueueRecord[max];
    taken = new boolean[max];
    tombstoneVersions = new long[max];
    int seen = Integer.highestOneBit(Math.max(16, max * 4) - 1) << 1;
    seenIds = new long[seen];
    seenValues = new long[seen];
    seenStamps = new int[seen];
    seenMask = seen - 1;
  }

  /**
   * The store has field groups: from now on writes set or clear their group keys, and
   * re-projections are judged with {@code versions}.
   */
  public void groups(Versions versions) {
    this.groups = true;
    this.current = versions;
  }

  /**
   * From now on {@link #ingested} hands every record of a batch to {@code p}, in sequence order,
   * once the batch is in the index and the cache.
   */
  public void positions(VisiblePositions p) {
    this.positions = p;
  }

  /**
   * Whether the last batch applied ended with a GROUPS record whose document has not come yet: a
   * point persisted now (an index checkpoint, a replica's follow point) would split the pair, so it
   * must stay before that record.
   */
  public boolean holdsGroups() {
    return groupsBefore != null;
  }

  /** GROUPS records found without their document (writes torn by a crash) since start. */
  public long tornGroups() {
    return tornGroups;
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
    Arrays.fill(sources, null);
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
    index.putAll(keys, values, entries);
    groupsBefore = groupsAfter;
    if (liveRecords != null) {
      liveRecords.replaced(previous, values, entries);
    }
  }

  private void entry(QueueRecord source, long key, long value, long expect) {
    entry(source, key, value, expect, source.version());
  }

  private void entry(QueueRecord source, long key, long value, long expect, long tombstoneVersion) {
    int e = entries++;
    tombstoneVersions[e] = tombstoneVersion;
    sources[e] = source;
    keys[e] = key;
    values[e] = value;
    expected[e] = expect;
    taken[e] = true;
  }

  /**
   * Fills the entries for records {@code [0, n)}; with {@code withPrevious} also {@link #previous}
   * (one index lookup per distinct key). Conditional entries always look up what they would
   * replace.
   */
  private void resolve(int n, LsmIndex index, boolean withPrevious) throws IOException {
    entries = 0;
    boolean conditional = false;
    QueueRecord pending = groupsBefore;
    for (int i = 0; i < n; i++) {
      QueueRecord r = records[i];
      long id = r.id();
      Op op = r.op();
      if (op == Op.GROUPS) {
        if (pending != null) {
          tornGroups++;
        }
        pending = null;
        if (RecordBody.groupsWithDocument(op, ByteBuffer.wrap(r.body()), 0)) {
          pending = r;
        } else {
          entry(r, GroupKeys.key(id), r.address(), REPROJECTED);
          conditional = true;
        }
        continue;
      }
      QueueRecord withDocument = pending;
      pending = null;
      if (withDocument != null
          && !(op.stores()
              && withDocument.id() == id
              && withDocument.sequence() + 1 == r.sequence())) {
        tornGroups++;
        withDocument = null;
      }
      switch (op) {
        case PUT, PUT_EXPIRING -> {
          entry(r, id, r.address(), ALWAYS);
          if (groups && withDocument != null) {
            entry(withDocument, GroupKeys.key(id), withDocument.address(), ALWAYS);
          } else if (groups) {
            // No projections came with it (written before groups, or their record was in a
            // segment a rebuild stepped over): whatever projections an older version had are
            // gone, and a relocated copy of this version's own may still come, so the tombstone
            // stands just below this version.
            entry(r, GroupKeys.key(id), LsmIndex.DELETED, ALWAYS, r.version() - 1);
          }
        }
        case DELETE -> {
          entry(r, id, LsmIndex.DELETED, ALWAYS);
          if (groups) {
            entry(r, GroupKeys.key(id), LsmIndex.DELETED, ALWAYS);
          }
        }
        case DROPPED -> {
          long original = r.originalAddress();
          entry(r, id, LsmIndex.DELETED, original);
          if (groups) {
            entry(r, GroupKeys.key(id), LsmIndex.DELETED, original);
          }
          conditional = true;
        }
        case SOURCE -> entry(r, id, r.address(), ALWAYS); // id: the partition's source key
        case RELOCATED -> {
          Op original = r.originalOp();
          long key = original == Op.GROUPS ? GroupKeys.key(id) : id;
          entry(
              r, key, original == Op.DELETE ? LsmIndex.DELETED : r.address(), r.originalAddress());
          conditional = true;
        }
        default -> throw new IllegalStateException("record kind " + op);
      }
    }
    groupsAfter = pending;
    if (withPrevious || conditional || versions != null) {
      lookUpPrevious(index);
    }
  }

  private int slot(long key) {
    int slot = (int) (mix(key) & seenMask);
    while (seenStamps[slot] == stamp && seenIds[slot] != key) {
      slot = (slot + 1) & seenMask;
    }
    return slot;
  }

  /** What the index holds for {@code key} at this point of the batch. */
  private long held(long key, LsmIndex index) throws IOException {
    int slot = slot(key);
    return seenStamps[slot] == stamp ? seenValues[slot] : index.get(key);
  }

  private void lookUpPrevious(LsmIndex index) throws IOException {
    if (++stamp == 0) {
      Arrays.fill(seenStamps, 0);
      stamp = 1;
    }
    for (int e = 0; e < entries; e++) {
      long key = keys[e];
      int slot = slot(key);
      if (seenStamps[slot] == stamp) {
        previous[e] = seenValues[slot];
      } else {
        previous[e] = index.get(key);
        seenStamps[slot] = stamp;
        seenIds[slot] = key;
      }
      QueueRecord r = sources[e];
      long expect = expected[e];
      boolean takes = true;
      if (expect == REPROJECTED) {
        long document = held(GroupKeys.documentId(key), index);
        takes = current != null && document >= 0 && current.versionAt(document) == r.version();
      } else if (expect != ALWAYS) {
        takes = previous[e] == expect || newerThanIndexed(r, key, previous[e]);
      }
      if (!takes) {
        // Written, deleted or relocated since: leave the entry as it is.
        values[e] = previous[e] >= 0 ? previous[e] : LsmIndex.DELETED;
      }
      taken[e] = takes;
      if (deletedAt != null && takes && values[e] == LsmIndex.DELETED) {
        deletedAt.put(key, tombstoneVersions[e]); // a tombstone set now, at its version
      }
      seenValues[slot] = values[e];
    }
  }

  /**
   * While rebuilding: whether RELOCATED or DROPPED record {@code r} is to replace {@code indexed}
   * (what the index holds for {@code key}) by version. Always false when live: there, a key whose
   * entry is not the original address was written or deleted after the original (the space
   * reclamation relocates only what the index points at).
   */
  private boolean newerThanIndexed(QueueRecord r, long key, long indexed) throws IOException {
    if (versions == null) {
      return false;
    }
    long held;
    if (indexed >= 0) {
      held = versions.versionAt(indexed);
    } else {
      Long d = deletedAt.get(key);
      held = d == null ? -1 : d; // absent: nothing older can show through
    }
    long v = r.version();
    return r.op() == Op.RELOCATED ? held < v : held <= v;
  }

  /**
   * The cache's side of the batch once it is in the index: a new version or a tombstone per entry
   * of a user's write, and per RELOCATED or DROPPED entry that took effect (the same version a
   * reader saw for a live relocation; while rebuilding, it may replace an older one); then each
   * record to the {@linkplain #positions visible positions}, if any. Clears the batch.
   *
   * @param writes called with each record that is a user's write (not a relocation), e.g. for
   *     freshness
   */
  public void ingested(DocCache cache, int n, java.util.function.Consumer<QueueRecord> writes) {
    for (int e = 0; e < entries; e++) {
      QueueRecord r = sources[e];
      Op op = r.op();
      long key = keys[e];
      if (!taken[e]) {
        // lost its compare-and-set: nothing changed
      } else if (values[e] == LsmIndex.DELETED) {
        cache.setDeleted(key, tombstoneVersions[e]);
      } else if (SourceKeys.isSourceKey(key)) {
        // a position in the update log: nothing a reader asks the cache for
      } else if ((op != Op.DROPPED && op != Op.RELOCATED) || versions != null) {
        // a write or re-projection; a live relocation leaves the cache's version as it is
        cache.set(key, r.version(), r.document(), r.expiresAtMillis());
      }
      sources[e] = null;
    }
    for (int i = 0; i < n; i++) {
      QueueRecord r = records[i];
      Op op = r.op();
      if (op != Op.DROPPED && op != Op.RELOCATED && op != Op.GROUPS && op != Op.SOURCE) {
        writes.accept(r);
      }
      if (positions != null) {
        positions.applied(r);
      }
      records[i] = null;
    }
  }

  private static long mix(long id) {
    long h = id * 0x9E3779B97F4A7C15L;
    return h ^ (h >>> 29);
  }
}
