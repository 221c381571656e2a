package io.docstore.service.cache;

import io.netty.buffer.ByteBuf;
import java.io.Closeable;

/**
 * A cache of the newest document versions, keyed by document ID.
 *
 * <p>The ordering rule that keeps it from ever serving a stale version (lsmtree's
 * MemcachedMappingRecordCache rule): the ingest path writes with {@link #set} (an update) and
 * {@link #setDeleted} (a delete leaves a tombstone entry rather than removing the key, so a late
 * read-miss fill cannot resurrect the old version); read misses fill with {@link #fill}, which
 * never overwrites an existing entry. Readers treat a tombstone as "absent", and an entry past its
 * expiry ({@code expiresAtMillis}, 0 for never) as "absent" too: a cache never serves a document
 * after it expired, whatever it holds.
 *
 * <p>Failures of the cache are never errors for callers: a get that fails or times out is a miss, a
 * write that fails is dropped (and counted). Thread-safe.
 */
public interface DocCache extends Closeable {

  /** The cached entry for {@code id}, or null on a miss (or any cache failure). */
  CachedDoc get(long id);

  /**
   * If this cache can answer without blocking (an in-process cache) and holds the live document
   * {@code id}: appends its body to {@code out} and returns its sequence number. Otherwise returns
   * -1 with {@code out} unchanged: on a miss, for a cached deletion or expired version, or when the
   * cache is remote. Lets a network thread answer a hit without a hand-off to a worker and without
   * a copy on the heap; a -1 sends the caller to {@link #get} on a worker. Misses here are not
   * counted.
   */
  default long copyIfLocal(long id, ByteBuf out) {
    return -1;
  }

  /**
   * Where one part of a cached body lies, for {@link #copyPartIfLocal}: {@code offset << 32 |
   * length} with the offset counted from {@code at}, or -1 when the body has no such part. Reads
   * {@code body} with absolute gets only. It may be handed a body being overwritten (the cache
   * checks afterwards and asks again): it may then throw or answer nonsense, but must not loop.
   */
  @FunctionalInterface
  interface Part {
    long find(java.nio.ByteBuffer body, int at, int length);
  }

  /**
   * {@link #copyIfLocal} of one part of the body, found by {@code part}: a hit whose body has no
   * such part is -1 too. Lets a group read copy one projection straight out of the cache.
   */
  default long copyPartIfLocal(long id, Part part, ByteBuf out) {
    return -1;
  }

  /** Whether this cache answers from this process's memory (never a network call). */
  default boolean local() {
    return false;
  }

  /** One batched lookup; the result has one slot per ID, null for misses. */
  CachedDoc[] getAll(long[] ids);

  /**
   * Fills after a read miss; never replaces an existing entry. {@code expiresAtMillis} is the
   * version's expiry (epoch milliseconds), 0 if it never expires.
   */
  void fill(long id, long sequence, byte[] body, long expiresAtMillis);

  /** {@link #fill} of a version that never expires. */
  default void fill(long id, long sequence, byte[] body) {
    fill(id, sequence, body, 0);
  }

  /** {@link #fill} with the body at {@code src[index, index + length)} (src unchanged). */
  default void fill(
      long id, long sequence, ByteBuf src, int index, int length, long expiresAtMillis) {
    byte[] body = new byte[length];
    src.getBytes(index, body);
    fill(id, sequence, body, expiresAtMillis);
  }

  /**
   * Counts a miss that {@link #copyIfLocal} found (it counts only hits) and that is then read from
   * the store without a {@link #get}, which would count it.
   */
  default void countMiss() {}

  /**
   * Records a new version written by the ingest path; replaces any entry. {@code expiresAtMillis}
   * as for {@link #fill}.
   */
  void set(long id, long sequence, byte[] body, long expiresAtMillis);

  /** {@link #set} of a version that never expires. */
  default void set(long id, long sequence, byte[] body) {
    set(id, sequence, body, 0);
  }

  /**
   * Records that {@code id} was deleted at {@code sequence}; replaces any entry with a tombstone.
   */
  void setDeleted(long id, long sequence);

  /** Hit/miss/error counters for metrics and {@code /stats}. */
  CacheStats stats();

  @Override
  void close();
}
