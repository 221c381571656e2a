package io.docstore.service.cache;

import io.docstore.io.cache.SlotCache;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.StampedLock;

/**
 * One stripe of {@link OffHeapDocCache}: document versions appended to a ring of off-heap chunks,
 * found through an open-addressing table of primitive arrays. Nothing is allocated per entry.
 *
 * <p>Entry layout in a chunk (8-byte aligned, big-endian; the layout lives only in memory):
 *
 * <pre>
 *   id       int64
 *   length   int32   body bytes, -1 for a tombstone or -2 for a version too large to cache (no body)
 *   unused   int32
 *   expires  int64   the version's expiry, epoch milliseconds; 0 if it never expires
 *   body     length bytes, then padding to 8
 * </pre>
 *
 * The table holds, per bucket, the id, the entry's location, its sequence number, its length and a
 * reference bit. An entry is live while the table points at it; a replaced entry stays in its chunk
 * as dead bytes until the chunk is reused.
 *
 * <p><b>Eviction</b> is FIFO with reinsertion (CLOCK over a log): when the head needs room it moves
 * to the next chunk of the ring; that chunk's live entries that were read since they were written
 * (reference bit set) are kept, moved to its start with the bit cleared, and the rest are dropped.
 * So one pass of a scan or of a stream of writes cannot push out what is being read.
 *
 * <p><b>Concurrency</b>: a {@link StampedLock}. Writers take the write lock. Readers read under an
 * optimistic stamp (seqlock style) and validate; a reader that overlapped a writer (or threw on
 * torn state) retries under the read lock. The table is replaced as a whole when it grows, so an
 * optimistic reader sees one table or the other, never a mix.
 */
final class DocLog {

  static final int HEADER = 24;
  private static final int EXPIRES = 16;
  static final long ABSENT = -1;
  static final long DELETED = -2;
  static final long EXPIRED = -3;

  /** The length of an entry that stands for a version too large to cache. */
  static final int UNCACHED = -2;

  /**
   * The lookup structure, replaced whole when it grows: four longs per bucket in one array (id,
   * location, sequence, length), so a probe touches one cache line, plus a reference bit per bucket
   * in an array of its own (the only word readers write). Locations are {@code chunk << 32 |
   * offset}, plus one; 0 marks an empty bucket. A length of -1 is a tombstone, of -2 a version too
   * large to cache: lookups miss it, and it keeps a slow reader's fill of an older version out.
   */
  private static final class Table {
    static final int ID = 0;
    static final int LOC = 1;
    static final int SEQ = 2;
    static final int LEN = 3;

    final long[] b;
    final byte[] refs;
    final int mask;

    Table(int buckets) {
      b = new long[buckets * 4];
      refs = new byte[buckets];
      mask = buckets - 1;
    }

    long id(int i) {
      return b[i << 2];
    }

    long loc(int i) {
      return b[(i << 2) + LOC];
    }

    long seq(int i) {
      return b[(i << 2) + SEQ];
    }

    int len(int i) {
      return (int) b[(i << 2) + LEN];
    }

    void set(int i, long id, long loc, long seq, int len) {
      int k = i << 2;
      b[k] = id;
      b[k + SEQ] = seq;
      b[k + LEN] = len;
      b[k + LOC] = loc;
    }

    /**
     * The bucket of {@code id}, or -1. Bounded, so it ends when racing a writer (the answer is then
     * validated away).
     */
    int find(long id, long hash) {
      int i = (int) hash & mask;
      for (int n = 0; n <= mask; n++) {
        int k = i << 2;
        if (b[k + LOC] == 0) {
          return -1;
        }
        if (b[k] == id) {
          return i;
        }
        i = (i + 1) & mask;
      }
      return -1;
    }
  }

  final StampedLock lock = new StampedLock();
  private final int chunkSize;
  private final ByteBuffer[] chunks;
  private final ByteBuf[] views;
  private final int[] chunkEnds;
  private volatile Table table = new Table(64);
  private int count;
  private int head = -1;
  private int headEnd;
  private ByteBuffer scratch;
  long liveBytes;
  long evictions;

  DocLog(int chunkCount, int chunkSize) {
    this.chunkSize = chunkSize;
    this.chunks = new ByteBuffer[chunkCount];
    this.views = new ByteBuf[chunkCount];
    this.chunkEnds = new int[chunkCount];
  }

  static int entrySize(int length) {
    return (HEADER + Math.max(0, length) + 7) & ~7;
  }

  /**
   * The largest body an entry may have: a quarter of a chunk, so one entry never empties a chunk on
   * its own.
   */
  int maxBody() {
    return chunkSize / 4 - HEADER;
  }

  /** Bytes of off-heap chunks allocated so far. */
  long allocatedBytes() {
    long n = scratch == null ? 0 : chunkSize;
    for (ByteBuffer c : chunks) {
      if (c != null) {
        n += chunkSize;
      }
    }
    return n;
  }

  // ---- reads ------------------------------------------------------------------------------------

  /**
   * The sequence of the live entry for {@code id} with its body appended to {@code out}, or {@link
   * #ABSENT} / {@link #DELETED} / {@link #EXPIRED} at {@code nowMillis} (then {@code out} is
   * unchanged). Caller holds no lock.
   */
  long readInto(long id, long hash, ByteBuf out, long nowMillis) {
    return readInto(id, hash, out, nowMillis, null);
  }

  /**
   * {@link #readInto(long, long, ByteBuf, long)} of the part of the body {@code part} finds (the
   * whole body when null); {@link #ABSENT} too when the body has no such part.
   */
  long readInto(long id, long hash, ByteBuf out, long nowMillis, DocCache.Part part) {
    int mark = out.writerIndex();
    long stamp = lock.tryOptimisticRead();
    if (stamp != 0) {
      try {
        long r = readInto(table, id, hash, out, nowMillis, part);
        if (lock.validate(stamp)) {
          return r;
        }
      } catch (RuntimeException torn) {
        if (lock.validate(stamp)) {
          throw torn;
        }
      }
      out.writerIndex(mark);
    }
    stamp = lock.readLock();
    try {
      return readInto(table, id, hash, out, nowMillis, part);
    } finally {
      lock.unlockRead(stamp);
    }
  }

  private long readInto(
      Table t, long id, long hash, ByteBuf out, long nowMillis, DocCache.Part part) {
    int b = t.find(id, hash);
    if (b < 0) {
      return ABSENT;
    }
    long seq = t.seq(b);
    int len = t.len(b);
    if (len == UNCACHED) {
      return ABSENT;
    }
    if (len < 0) {
      return DELETED;
    }
    long loc = t.loc(b) - 1;
    int c = (int) (loc >>> 32);
    int off = (int) loc;
    if (len > chunkSize - off - HEADER) {
      throw new IllegalStateException("torn entry");
    }
    long expires = chunks[c].getLong(off + EXPIRES);
    if (expires != 0 && nowMillis >= expires) {
      return EXPIRED;
    }
    if (part == null) {
      out.writeBytes(views[c], off + HEADER, len);
    } else {
      long p = part.find(chunks[c], off + HEADER, len);
      if (p < 0) {
        return ABSENT;
      }
      int from = (int) (p >>> 32);
      int partLength = (int) p;
      if (from < 0 || partLength < 0 || partLength > len - from) {
        throw new IllegalStateException("torn entry"); // read while overwritten: validated above
      }
      out.writeBytes(views[c], off + HEADER + from, partLength);
    }
    t.refs[b] = 1;
    return seq;
  }

  /**
   * The entry for {@code id} as a {@link CachedDoc} (a copy of the body), or null. Caller holds no
   * lock.
   */
  CachedDoc get(long id, long hash) {
    long stamp = lock.tryOptimisticRead();
    if (stamp != 0) {
      try {
        CachedDoc d = get(table, id, hash);
        if (lock.validate(stamp)) {
          return d;
        }
      } catch (RuntimeException torn) {
        if (lock.validate(stamp)) {
          throw torn;
        }
      }
    }
    stamp = lock.readLock();
    try {
      return get(table, id, hash);
    } finally {
      lock.unlockRead(stamp);
    }
  }

  private CachedDoc get(Table t, long id, long hash) {
    int b = t.find(id, hash);
    if (b < 0) {
      return null;
    }
    long seq = t.seq(b);
    int len = t.len(b);
    if (len == UNCACHED) {
      return null;
    }
    if (len < 0) {
      return new CachedDoc(seq, null);
    }
    long loc = t.loc(b) - 1;
    int off = (int) loc;
    if (len > chunkSize - off - HEADER) {
      throw new IllegalStateException("torn entry");
    }
    byte[] body = new byte[len];
    ByteBuffer chunk = chunks[(int) (loc >>> 32)];
    chunk.get(off + HEADER, body, 0, len);
    t.refs[b] = 1;
    return new CachedDoc(seq, body, chunk.getLong(off + EXPIRES));
  }

  // ---- writes (caller holds the write lock) -----------------------------------------------------

  /**
   * Stores {@code src[index, index + length)} (src null: a tombstone) as the entry of {@code id} at
   * {@code seq}. With {@code onlyIfAbsent}, only when there is no entry; otherwise unless the entry
   * has a higher sequence. Returns whether it was stored.
   */
  boolean put(
      long id,
      long hash,
      long seq,
      ByteBuf src,
      int index,
      int length,
      long expiresAtMillis,
      boolean onlyIfAbsent) {
    return store(
        id, hash, seq, src, index, src == null ? -1 : length, expiresAtMillis, onlyIfAbsent);
  }

  private boolean store(
      long id,
      long hash,
      long seq,
      ByteBuf src,
      int index,
      int len,
      long expiresAtMillis,
      boolean onlyIfAbsent) {
    Table t = table;
    int b = t.find(id, hash);
    if (b >= 0 && (onlyIfAbsent || t.seq(b) > seq)) {
      return false;
    }
    int size = entrySize(len);
    long loc = append(id, len, size, expiresAtMillis);
    if (src != null) {
      views[(int) (loc >>> 32)].setBytes((int) loc + HEADER, src, index, len);
    }
    t = table; // append may have evicted (which never grows the table) but keep one read per step
    b = t.find(id, hash);
    if (b >= 0) {
      liveBytes -= entrySize(t.len(b));
      t.set(b, id, loc + 1, seq, len);
      t.refs[b] = 0;
    } else {
      insert(id, hash, loc, seq, len);
    }
    liveBytes += size;
    return true;
  }

  /**
   * Records that version {@code seq} of {@code id} is too large to cache, unless the entry has a
   * higher sequence: a lookup then misses, and a fill (of an older version, by a reader whose
   * lookup came before this version was indexed) is refused, as an entry refuses it.
   */
  void putUncached(long id, long hash, long seq) {
    store(id, hash, seq, null, 0, UNCACHED, 0, false);
  }

  /** Room for one entry at the head, with its header written; returns its location. */
  private long append(long id, int len, int size, long expiresAtMillis) {
    if (head < 0 || headEnd + size > chunkSize) {
      advance(size);
    }
    long loc = (long) head << 32 | headEnd;
    ByteBuffer c = chunks[head];
    c.putLong(headEnd, id);
    c.putInt(headEnd + 8, len);
    c.putInt(headEnd + 12, 0);
    c.putLong(headEnd + EXPIRES, expiresAtMillis);
    headEnd += size;
    chunkEnds[head] = headEnd;
    return loc;
  }

  /**
   * Moves the head to the next chunk of the ring with {@code size} bytes free, evicting as it goes.
   */
  private void advance(int size) {
    for (int lap = 0; lap <= 2 * chunks.length + 1; lap++) {
      head = head + 1 == chunks.length ? 0 : head + 1;
      if (chunks[head] == null) {
        ByteBuffer b = ByteBuffer.allocateDirect(chunkSize);
        views[head] = Unpooled.wrappedBuffer(b);
        chunks[head] = b;
        chunkEnds[head] = 0;
      }
      headEnd = recycle(head);
      if (headEnd + size <= chunkSize) {
        return;
      }
    }
    throw new IllegalStateException(
        "no chunk frees " + size + " bytes"); // unreachable: a second lap keeps nothing
  }

  /**
   * Empties chunk {@code c} for reuse: live entries read since written move to its start (bit
   * cleared), other live entries leave the table. Returns the bytes kept.
   */
  private int recycle(int c) {
    int end = chunkEnds[c];
    if (end == 0) {
      return 0;
    }
    ByteBuffer chunk = chunks[c];
    if (scratch == null) {
      scratch = ByteBuffer.allocateDirect(chunkSize);
    }
    Table t = table;
    int kept = 0;
    for (int off = 0; off < end; ) {
      long id = chunk.getLong(off);
      int len = chunk.getInt(off + 8);
      int size = entrySize(len);
      long hash = SlotCache.mix(id);
      int b = t.find(id, hash);
      if (b >= 0 && t.loc(b) == ((long) c << 32 | off) + 1) {
        if (t.refs[b] != 0) {
          scratch.put(kept, chunk, off, size);
          t.refs[b] = 0;
          t.set(b, id, ((long) c << 32 | kept) + 1, t.seq(b), len);
          kept += size;
        } else {
          remove(t, b);
          liveBytes -= size;
          evictions++;
        }
      }
      off += size;
    }
    if (kept > 0) {
      chunk.put(0, scratch, 0, kept);
    }
    chunkEnds[c] = kept;
    return kept;
  }

  private void insert(long id, long hash, long loc, long seq, int len) {
    Table t = table;
    if ((count + 1) * 2 > t.mask + 1) {
      t = grow(t);
    }
    int i = (int) hash & t.mask;
    while (t.loc(i) != 0) {
      i = (i + 1) & t.mask;
    }
    t.set(i, id, loc + 1, seq, len);
    t.refs[i] = 0;
    count++;
  }

  private Table grow(Table old) {
    Table t = new Table((old.mask + 1) * 2);
    for (int j = 0; j <= old.mask; j++) {
      if (old.loc(j) != 0) {
        int i = (int) SlotCache.mix(old.id(j)) & t.mask;
        while (t.loc(i) != 0) {
          i = (i + 1) & t.mask;
        }
        copyBucket(old, j, t, i);
      }
    }
    table = t;
    return t;
  }

  private static void copyBucket(Table from, int j, Table to, int i) {
    to.set(i, from.id(j), from.loc(j), from.seq(j), from.len(j));
    to.refs[i] = from.refs[j];
  }

  /** Backward-shift deletion, so every probe chain stays unbroken. */
  private void remove(Table t, int pos) {
    int hole = pos;
    int j = pos;
    while (true) {
      j = (j + 1) & t.mask;
      if (t.loc(j) == 0) {
        break;
      }
      int home = (int) SlotCache.mix(t.id(j)) & t.mask;
      boolean stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
      if (!stays) {
        copyBucket(t, j, t, hole);
        hole = j;
      }
    }
    t.b[(hole << 2) + Table.LOC] = 0;
    count--;
  }

  /** Entries in the table (tombstones included). */
  int count() {
    return count;
  }

  /** Drops every entry; chunks stay allocated for reuse. Caller holds the write lock. */
  void clear() {
    table = new Table(64);
    count = 0;
    head = -1;
    headEnd = 0;
    java.util.Arrays.fill(chunkEnds, 0);
    liveBytes = 0;
  }
}
