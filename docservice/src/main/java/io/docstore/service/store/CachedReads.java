package io.docstore.service.store;

import io.docstore.client.Document;
import io.docstore.queue.QueueRecord;
import io.docstore.queue.ReclaimedAddressException;
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
 * fill is refused).
 *
 * <p>Expiry: a version with an expiry is served until its {@code expiresAtMillis} and is absent
 * from then on, by the reader's clock: the cache keeps the expiry with the entry, and a record read
 * from the queue is checked too. Thread-safe.
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
     * The record at {@code address}, checked to store a document of {@code id} (a mismatch is a
     * corruption error).
     */
    QueueRecord load(long id, long address) throws IOException;

    /**
     * {@link #load}, with the document appended to {@code out} instead of copied into a record;
     * returns its version, with its expiry (0 for never) in {@code expiresAt[0]}. The default goes
     * through {@link #load}.
     */
    default long loadInto(long id, long address, ByteBuf out, long[] expiresAt) throws IOException {
      QueueRecord r = load(id, address);
      out.writeBytes(r.document());
      expiresAt[0] = r.expiresAtMillis();
      return r.version();
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

  /** The newest version of {@code id}, or null where absent, deleted or expired. */
  public Document get(long id) throws IOException {
    CachedDoc c = cache.get(id);
    if (c != null) {
      metrics.cacheHit();
      return readable(c) ? new Document(id, c.sequence(), 0, c.body()) : null;
    }
    long applied = source.appliedVersion();
    long address = source.lookup(id);
    if (address < 0) {
      metrics.absent();
      return null;
    }
    QueueRecord r = load(id, address);
    if (r == null) {
      metrics.absent();
      return null;
    }
    metrics.diskRead();
    long expires = r.expiresAtMillis();
    byte[] document = r.document();
    if (source.appliedVersion() == applied) {
      cache.fill(id, r.version(), document, expires);
    }
    if (expired(expires)) {
      return null;
    }
    return new Document(id, r.version(), r.acceptedAtMillis(), document);
  }

  /**
   * The record at {@code address}, or at the ID's new address when the space reclamation moved it
   * between the lookup and the read (its old segment is hollow); null if the ID was dropped
   * meanwhile.
   */
  private QueueRecord load(long id, long address) throws IOException {
    try {
      return source.load(id, address);
    } catch (ReclaimedAddressException e) {
      long again = source.lookup(id);
      if (again == address) {
        throw e; // the index points into a hollow segment: a bug, reported as such
      }
      return again < 0 ? null : source.load(id, again);
    }
  }

  /** A cache hit that is a live document (not a tombstone, not expired); counts expired ones. */
  private boolean readable(CachedDoc c) {
    if (c.deleted()) {
      return false;
    }
    if (c.expiresAtMillis() != 0 && !c.readableAt(System.currentTimeMillis())) {
      metrics.expired();
      return false;
    }
    return true;
  }

  /** Whether a version with expiry {@code expiresAtMillis} (0: never) has expired; counts it. */
  private boolean expired(long expiresAtMillis) {
    if (expiresAtMillis != 0 && System.currentTimeMillis() >= expiresAtMillis) {
      metrics.expired();
      return true;
    }
    return false;
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
   * {@link #copyIfCached} of the part of the body {@code part} finds ({@link
   * DocCache#copyPartIfLocal}); -1 as well for a hit without that part.
   */
  public long copyPartIfCached(long id, DocCache.Part part, ByteBuf out) {
    long seq = cache.copyPartIfLocal(id, part, out);
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
    long[] expires = new long[1];
    long sequence;
    try {
      sequence = source.loadInto(id, address, out, expires);
    } catch (ReclaimedAddressException e) {
      long again = source.lookup(id);
      if (again == address) {
        throw e;
      }
      if (again < 0) {
        metrics.absent();
        return -1;
      }
      sequence = source.loadInto(id, again, out, expires);
    }
    metrics.diskRead();
    if (source.appliedVersion() == applied) {
      cache.fill(id, sequence, out, from, out.writerIndex() - from, expires[0]);
    }
    if (expired(expires[0])) {
      out.writerIndex(from);
      return -1;
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
        out[i] = readable(c) ? new Document(ids[i], c.sequence(), 0, c.body()) : null;
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
    List<Loaded> loaded = new ArrayList<>(misses);
    for (int slot : order) {
      if (addresses[slot] < 0) {
        metrics.absent();
        continue;
      }
      QueueRecord r = load(ids[slot], addresses[slot]);
      if (r == null) {
        metrics.absent();
        continue;
      }
      metrics.diskRead();
      Loaded l =
          new Loaded(
              new Document(ids[slot], r.version(), r.acceptedAtMillis(), r.document()),
              r.expiresAtMillis());
      loaded.add(l);
      if (!expired(l.expiresAtMillis())) {
        out[slot] = l.doc();
      }
    }
    if (source.appliedVersion() == applied) {
      for (Loaded l : loaded) {
        cache.fill(l.doc().id(), l.doc().sequence(), l.doc().body(), l.expiresAtMillis());
      }
    }
    return out;
  }

  /** A document read from the queue for a multi-get, with its expiry (0: never). */
  private record Loaded(Document doc, long expiresAtMillis) {}
}
