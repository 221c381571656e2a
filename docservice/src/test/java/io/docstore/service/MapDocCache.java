package io.docstore.service;

import io.docstore.service.cache.CacheStats;
import io.docstore.service.cache.CachedDoc;
import io.docstore.service.cache.DocCache;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** An unbounded test cache that follows the {@link DocCache} rules (fill never replaces). */
public final class MapDocCache implements DocCache {

  private final ConcurrentHashMap<Long, CachedDoc> map = new ConcurrentHashMap<>();
  private final AtomicLong hits = new AtomicLong();
  private final AtomicLong misses = new AtomicLong();
  private final AtomicLong fills = new AtomicLong();
  private final AtomicLong sets = new AtomicLong();

  @Override
  public CachedDoc get(long id) {
    CachedDoc c = map.get(id);
    (c == null ? misses : hits).incrementAndGet();
    return c;
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
    if (map.putIfAbsent(id, new CachedDoc(sequence, body)) == null) {
      fills.incrementAndGet();
    }
  }

  @Override
  public void set(long id, long sequence, byte[] body) {
    map.put(id, new CachedDoc(sequence, body));
    sets.incrementAndGet();
  }

  @Override
  public void setDeleted(long id, long sequence) {
    map.put(id, new CachedDoc(sequence, null));
    sets.incrementAndGet();
  }

  /** Drops every entry, as a restarted cache would. */
  public void clear() {
    map.clear();
  }

  @Override
  public CacheStats stats() {
    return new CacheStats(hits.get(), misses.get(), fills.get(), sets.get(), 0, 0);
  }

  @Override
  public void close() {}
}
