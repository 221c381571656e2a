package io.docstore.service.store;

import io.docstore.client.Document;
import io.docstore.queue.Op;
import io.docstore.queue.QueueRecord;
import io.docstore.service.cache.CachedDoc;
import io.docstore.service.cache.DocCache;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The read path shared by the primary ({@code DocStore}) and a replica ({@code ReplicaNode}): the
 * document cache, then the index, then the queue record, whose ID and operation the source checks.
 * A read miss fills the cache (with {@link DocCache#fill}, which never replaces an entry) only if
 * nothing was applied since its index lookup, so a slow reader cannot put back a version the ingest
 * path just replaced.
 *
 * <p>Contract with the ingest path (one writer): apply a batch to the index, then {@code set} or
 * {@code setDeleted} every record of it in the cache, then advance {@link Source#appliedVersion()}.
 * A reader whose lookup came before the batch then either sees the version change and skips its
 * fill, or fills before the ingest's {@code set} (which replaces the fill), or after it (where the
 * fill is refused). Thread-safe.
 */
public final class CachedReads {

  /** The index and queue behind the cache. */
  public interface Source {
    /**
     * Advances after each batch the ingest path applied (after the batch's cache entries were set).
     */
    long appliedVersion();

    /** The index's value for {@code id}: an address, or negative when absent or deleted. */
    long lookup(long id) throws IOException;

    /**
     * The record at {@code address}, checked to be a put of {@code id} (a mismatch is a corruption
     * error).
     */
    QueueRecord load(long id, long address) throws IOException;

    /**
     * {@link #load}, with the body appended to {@code out} instead of copied into a record; returns
     * its sequence number. The default goes through {@link #load}.
     */
    default long loadInto(long id, long address, ByteBuf out) throws IOException {
      QueueRecord r = load(id, address);
      out.writeBytes(r.body());
      return r.sequence();
    }
  }

  private final DocCache cache;
  private final StoreMetrics metrics;
  private final Source source;

  public CachedReads(DocCache cache, StoreMetrics metrics, Source source) {
    this.cache = cache;
    this.metrics = metrics;
    this.source = source;
  }

  /**
   * The ingest path's cache update for a record it just applied to the index: {@code set} for a
   * put, a tombstone for a delete (so a late read-miss fill cannot bring the old version back).
   */
  public static void ingested(DocCache cache, QueueRecord r) {
    if (r.op() == Op.DELETE) {
      cache.setDeleted(r.id(), r.sequence());
    } else {
      cache.set(r.id(), r.sequence(), r.body());
    }
  }

  /** The newest version of {@code id}, or null where absent or deleted. */
  public Document get(long id) throws IOException {
    CachedDoc c = cache.get(id);
    if (c != null) {
      metrics.cacheHit();
      return c.deleted() ? null : new Document(id, c.sequence(), 0, c.body());
    }
    long applied = source.appliedVersion();
    long address = source.lookup(id);
    if (address < 0) {
      metrics.absent();
      return null;
    }
    QueueRecord r = source.load(id, address);
    metrics.diskRead();
    if (source.appliedVersion() == applied) {
      cache.fill(id, r.sequence(), r.body());
    }
    return new Document(id, r.sequence(), r.acceptedAtMillis(), r.body());
  }

  /**
   * If an in-process cache holds the live document {@code id} (no blocking): its body appended to
   * {@code out}, and its sequence returned; else -1 and {@code out} unchanged.
   */
  public long copyIfCached(long id, ByteBuf out) {
    long seq = cache.copyIfLocal(id, out);
    if (seq >= 0) {
      metrics.cacheHit();
    }
    return seq;
  }

  /**
   * The read of {@link #get} for a document {@link #copyIfCached} did not find, without objects on
   * the heap: the body is appended to {@code out} (and filled into the cache from there) and its
   * sequence returned; -1 with {@code out} unchanged when absent or deleted.
   */
  public long copy(long id, ByteBuf out) throws IOException {
    cache.countMiss();
    long applied = source.appliedVersion();
    long address = source.lookup(id);
    if (address < 0) {
      metrics.absent();
      return -1;
    }
    int from = out.writerIndex();
    long sequence = source.loadInto(id, address, out);
    metrics.diskRead();
    if (source.appliedVersion() == applied) {
      cache.fill(id, sequence, out, from, out.writerIndex() - from);
    }
    return sequence;
  }

  /**
   * One slot per ID, null where absent or deleted: one cache multi-get, then the misses' index
   * lookups in ID order and queue reads in address order (both walk their files forwards).
   */
  public Document[] getAll(long[] ids) throws IOException {
    Document[] out = new Document[ids.length];
    CachedDoc[] cached = cache.getAll(ids);
    int misses = 0;
    int[] missSlots = new int[ids.length];
    for (int i = 0; i < ids.length; i++) {
      CachedDoc c = cached[i];
      if (c == null) {
        missSlots[misses++] = i;
      } else {
        metrics.cacheHit();
        out[i] = c.deleted() ? null : new Document(ids[i], c.sequence(), 0, c.body());
      }
    }
    if (misses == 0) {
      return out;
    }
    long applied = source.appliedVersion();
    Integer[] order = new Integer[misses];
    for (int k = 0; k < misses; k++) {
      order[k] = missSlots[k];
    }
    Arrays.sort(order, (a, b) -> Long.compare(ids[a], ids[b]));
    long[] addresses = new long[ids.length];
    for (int slot : order) {
      addresses[slot] = source.lookup(ids[slot]);
    }
    Arrays.sort(order, (a, b) -> Long.compare(addresses[a], addresses[b]));
    List<QueueRecord> loaded = new ArrayList<>(misses);
    for (int slot : order) {
      if (addresses[slot] < 0) {
        metrics.absent();
        continue;
      }
      QueueRecord r = source.load(ids[slot], addresses[slot]);
      metrics.diskRead();
      loaded.add(r);
      out[slot] = new Document(ids[slot], r.sequence(), r.acceptedAtMillis(), r.body());
    }
    if (source.appliedVersion() == applied) {
      for (QueueRecord r : loaded) {
        cache.fill(r.id(), r.sequence(), r.body());
      }
    }
    return out;
  }
}
