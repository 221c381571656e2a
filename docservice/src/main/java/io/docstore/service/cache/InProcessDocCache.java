package io.docstore.service.cache;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import com.google.common.cache.RemovalNotification;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The embedded default {@link DocCache}: an in-process map bounded by bytes (a Guava cache with a
 * weigher; least recently used entries go first).
 *
 * <p>Same ordering semantics as the memcached tier: {@link #fill} adds only when the key is absent,
 * {@link #set} and {@link #setDeleted} overwrite, and a delete leaves a tombstone. In addition, and
 * unlike memcached, an ingest write never replaces an entry with a <em>higher</em> sequence number, so
 * two ingest threads finishing out of order still leave the newest version in place.
 *
 * <p>Entries are kept as the caller's arrays, not copies: callers must not mutate a body after
 * handing it over, nor the body of a returned {@link CachedDoc}. Thread-safe.
 */
public final class InProcessDocCache implements DocCache {

  /** Rough per-entry overhead (key, entry, record, array headers) counted against the budget. */
  static final int ENTRY_OVERHEAD_BYTES = 96;

  private final Cache<Long, CachedDoc> cache;
  private final ConcurrentMap<Long, CachedDoc> map;
  private final AtomicLong bytes = new AtomicLong();
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongAdder fills = new LongAdder();
  private final LongAdder sets = new LongAdder();

  /**
   * @param maxBytes the budget for bodies plus per-entry overhead; must be positive
   */
  public InProcessDocCache(long maxBytes) {
    if (maxBytes <= 0) {
      throw new IllegalArgumentException("cache size must be positive: " + maxBytes);
    }
    this.cache =
        CacheBuilder.newBuilder()
            .maximumWeight(maxBytes)
            .weigher((Long id, CachedDoc doc) -> weight(doc))
            .removalListener(this::onRemoval)
            .build();
    this.map = cache.asMap();
  }

  static int weight(CachedDoc doc) {
    return ENTRY_OVERHEAD_BYTES + (doc.body() == null ? 0 : doc.body().length);
  }

  private void onRemoval(RemovalNotification<Long, CachedDoc> n) {
    CachedDoc old = n.getValue();
    if (old != null) {
      bytes.addAndGet(-weight(old));
    }
  }

  @Override
  public CachedDoc get(long id) {
    CachedDoc doc = map.get(id);
    (doc == null ? misses : hits).increment();
    return doc;
  }

  /**
   * Never blocks: a concurrent hash map lookup. Only live documents are returned (and counted as
   * hits); misses and deletions are left to the {@link #get} that follows, which counts them.
   */
  @Override
  public CachedDoc getIfLocal(long id) {
    CachedDoc doc = map.get(id);
    if (doc == null || doc.deleted()) {
      return null;
    }
    hits.increment();
    return doc;
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
  public void fill(long id, long sequence, byte[] body) {
    CachedDoc doc = new CachedDoc(sequence, body);
    if (map.putIfAbsent(id, doc) == null) {
      bytes.addAndGet(weight(doc));
      fills.increment();
    }
  }

  @Override
  public void set(long id, long sequence, byte[] body) {
    put(id, new CachedDoc(sequence, body));
  }

  @Override
  public void setDeleted(long id, long sequence) {
    put(id, new CachedDoc(sequence, null));
  }

  private void put(long id, CachedDoc doc) {
    sets.increment();
    // The removal listener subtracts the replaced entry; add the new one only if it went in.
    map.compute(
        id,
        (k, old) -> {
          if (old != null && old.sequence() > doc.sequence()) {
            return old;
          }
          bytes.addAndGet(weight(doc));
          return doc;
        });
  }

  @Override
  public CacheStats stats() {
    return new CacheStats(
        hits.sum(), misses.sum(), fills.sum(), sets.sum(), 0, Math.max(0, bytes.get()));
  }

  /** Number of entries (tombstones included); for tests and {@code /stats}. */
  public long size() {
    return cache.size();
  }

  /** Drops every entry; later reads miss and fill again from the store. */
  public void clear() {
    cache.invalidateAll();
  }

  @Override
  public void close() {
    clear();
  }
}
