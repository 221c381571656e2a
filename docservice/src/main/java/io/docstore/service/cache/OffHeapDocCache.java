package io.docstore.service.cache;

import io.docstore.io.cache.SlotCache;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToLongFunction;

/**
 * The embedded default {@link DocCache}: documents kept off the Java heap, bounded by bytes.
 *
 * <p>Why off heap: a cache of {@code byte[]} bodies on the heap is what set the read tail. With the
 * corpus larger than the cache every miss fills an entry and evicts another, so the young
 * collections copy fresh entries into the old generation and their pauses grew to tens of
 * milliseconds (docs/decisions.md, "Document cache off the heap"). Here a cached document is a few
 * primitive array slots on the heap and its bytes in direct memory; a hit copies the bytes straight
 * into the caller's (pooled, direct) response buffer with {@link #copyIfLocal}.
 *
 * <p>Keys spread over 16 stripes ({@link DocLog}), each a ring of chunks of at most 1 MiB taken as
 * they are first filled (RSS follows use). Eviction is FIFO with reinsertion, so entries read since
 * they were written survive a pass of writes or of a scan. Documents larger than a quarter of a
 * chunk (256 KiB at the default sizes) are not cached; they are read from the store every time.
 *
 * <p>Same ordering semantics as the memcached tier: {@link #fill} adds only when the key is absent,
 * {@link #set} and {@link #setDeleted} overwrite, and a delete leaves a tombstone. In addition, and
 * unlike memcached, an ingest write never replaces an entry with a <em>higher</em> sequence number,
 * so two ingest threads finishing out of order still leave the newest version in place.
 *
 * <p>Thread-safe. Bodies are copied in and out; callers keep ownership of their arrays.
 */
public final class OffHeapDocCache implements DocCache {

  private static final int STRIPES = 16;
  private static final int MAX_CHUNK = 1 << 20;
  private static final int MIN_CHUNK = 4 << 10;

  private final DocLog[] stripes;
  private final long capacity;
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongAdder fills = new LongAdder();
  private final LongAdder sets = new LongAdder();
  private final LongAdder tooLarge = new LongAdder();

  /**
   * @param maxBytes the budget for chunk memory (entries, their headers and dead bytes, plus one
   *     chunk per stripe of scratch for eviction); at least 64 KiB, or 0 for a cache that holds
   *     nothing (every read misses)
   */
  public OffHeapDocCache(long maxBytes) {
    if (maxBytes != 0 && maxBytes < 64 << 10) {
      throw new IllegalArgumentException(
          "cache size must be 0 (off) or at least 64K, got " + maxBytes);
    }
    if (maxBytes == 0) {
      stripes = new DocLog[0];
      capacity = 0;
      return;
    }
    int n = maxBytes >= STRIPES * (1L << 20) ? STRIPES : 1;
    long perStripe = maxBytes / n;
    int chunk = (int) Math.max(MIN_CHUNK, Math.min(MAX_CHUNK, Long.highestOneBit(perStripe / 16)));
    int chunks = (int) Math.max(2, perStripe / chunk - 1);
    stripes = new DocLog[n];
    for (int i = 0; i < n; i++) {
      stripes[i] = new DocLog(chunks, chunk);
    }
    capacity = (long) n * (chunks + 1) * chunk;
  }

  private DocLog stripe(long hash) {
    return stripes[(int) (hash >>> 60) & (stripes.length - 1)];
  }

  /**
   * The largest document body this cache stores; larger ones are never cached (-1: the cache is
   * off).
   */
  public int maxBodyBytes() {
    return stripes.length == 0 ? -1 : stripes[0].maxBody();
  }

  @Override
  public CachedDoc get(long id) {
    if (stripes.length == 0) {
      misses.increment();
      return null;
    }
    long h = SlotCache.mix(id);
    CachedDoc d = stripe(h).get(id, h);
    (d == null ? misses : hits).increment();
    return d;
  }

  /**
   * Never blocks: an optimistic read of one stripe, retried under its read lock only if a writer
   * overlapped. Only live documents are copied (and counted as hits); misses and tombstones return
   * -1 and are left to the {@link #get} that follows, which counts them.
   */
  @Override
  public long copyIfLocal(long id, ByteBuf out) {
    return copyPartIfLocal(id, null, out);
  }

  @Override
  public long copyPartIfLocal(long id, Part part, ByteBuf out) {
    if (stripes.length == 0) {
      return -1;
    }
    long h = SlotCache.mix(id);
    long seq = stripe(h).readInto(id, h, out, System.currentTimeMillis(), part);
    if (seq < 0) {
      return -1;
    }
    hits.increment();
    return seq;
  }

  @Override
  public boolean local() {
    return true;
  }

  @Override
  public CachedDoc[] getAll(long[] ids) {
    CachedDoc[] out = new CachedDoc[ids.length];
    for (int i = 0; i < ids.length; i++) {
      out[i] = get(ids[i]);
    }
    return out;
  }

  @Override
  public void fill(long id, long sequence, byte[] body, long expiresAtMillis) {
    if (write(id, sequence, Unpooled.wrappedBuffer(body), 0, body.length, expiresAtMillis, true)) {
      fills.increment();
    }
  }

  /** Copies the body from {@code src} straight into the cache (no array on the heap). */
  @Override
  public void fill(
      long id, long sequence, ByteBuf src, int index, int length, long expiresAtMillis) {
    if (write(id, sequence, src, index, length, expiresAtMillis, true)) {
      fills.increment();
    }
  }

  @Override
  public void countMiss() {
    misses.increment();
  }

  @Override
  public void set(long id, long sequence, byte[] body, long expiresAtMillis) {
    sets.increment();
    write(id, sequence, Unpooled.wrappedBuffer(body), 0, body.length, expiresAtMillis, false);
  }

  @Override
  public void setDeleted(long id, long sequence) {
    sets.increment();
    write(id, sequence, null, 0, -1, 0, false);
  }

  /** Stores {@code src[index, index + length)}, or a tombstone when {@code src} is null. */
  private boolean write(
      long id,
      long sequence,
      ByteBuf src,
      int index,
      int length,
      long expiresAtMillis,
      boolean onlyIfAbsent) {
    if (stripes.length == 0) {
      return false;
    }
    long h = SlotCache.mix(id);
    DocLog s = stripe(h);
    if (length > s.maxBody()) {
      tooLarge.increment();
      // A newer version too large to cache must not leave an older one to be served, nor let a
      // slow reader fill the older one back: a tombstone would hide the document, so an entry
      // without a body that lookups miss stands for it; a fill of a large body does nothing.
      if (!onlyIfAbsent) {
        long stamp = s.lock.writeLock();
        try {
          s.putUncached(id, h, sequence);
        } finally {
          s.lock.unlockWrite(stamp);
        }
      }
      return false;
    }
    long stamp = s.lock.writeLock();
    try {
      return s.put(id, h, sequence, src, index, length, expiresAtMillis, onlyIfAbsent);
    } finally {
      s.lock.unlockWrite(stamp);
    }
  }

  @Override
  public CacheStats stats() {
    return new CacheStats(
        hits.sum(), misses.sum(), fills.sum(), sets.sum(), 0, sum(s -> s.liveBytes));
  }

  /** Number of entries (tombstones included). */
  public long size() {
    return sum(DocLog::count);
  }

  /** Entries dropped to make room since the cache started. */
  public long evictions() {
    return sum(s -> s.evictions);
  }

  /** {@code f} summed over the stripes, each read under its read lock. */
  private long sum(ToLongFunction<DocLog> f) {
    long n = 0;
    for (DocLog s : stripes) {
      long stamp = s.lock.readLock();
      try {
        n += f.applyAsLong(s);
      } finally {
        s.lock.unlockRead(stamp);
      }
    }
    return n;
  }

  /** Writes of documents too large to cache. */
  public long tooLarge() {
    return tooLarge.sum();
  }

  /** The most off-heap memory the cache takes once full. */
  public long capacityBytes() {
    return capacity;
  }

  /** Off-heap memory taken so far (chunks are taken as they are first filled). */
  public long allocatedBytes() {
    return sum(DocLog::allocatedBytes);
  }

  /** Drops every entry; later reads miss and fill again from the store. */
  public void clear() {
    for (DocLog s : stripes) {
      long stamp = s.lock.writeLock();
      try {
        s.clear();
      } finally {
        s.lock.unlockWrite(stamp);
      }
    }
  }

  @Override
  public void close() {
    clear();
  }
}
