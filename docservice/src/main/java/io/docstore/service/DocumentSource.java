package io.docstore.service;

import io.docstore.client.Document;
import io.docstore.service.groups.FieldGroups;
import io.docstore.service.groups.GroupReads;
import io.netty.buffer.ByteBuf;
import java.io.IOException;

/**
 * What the read APIs (HTTP, RPC) need from the store: lookups by ID. Implemented by the store (and
 * by the replica's store); the read paths depend on this, not on how documents are kept.
 *
 * <p>Implementations are thread-safe. A {@link io.docstore.io.CorruptionException} means the stored
 * bytes of that document are damaged: callers report it for that document and keep serving others.
 */
public interface DocumentSource {

  /** The newest version of {@code id}, or null if it was never written or is deleted. */
  Document get(long id) throws IOException;

  /**
   * If the newest version of {@code id} can be had without blocking (an in-process cache hit): its
   * body appended to {@code out} (no copy on the heap) and its sequence returned. Else -1 with
   * {@code out} unchanged: then ask {@link #get} on a thread that may block. A -1 says nothing
   * about whether the document exists. For network threads; must never block or throw for a valid
   * ID.
   */
  default long copyIfCached(long id, ByteBuf out) {
    return -1;
  }

  /**
   * {@link #get} for a document that {@link #copyIfCached} did not find: its body appended to
   * {@code out} and its sequence returned, or -1 with {@code out} unchanged where absent or
   * deleted. The default goes through {@link #get}; a store may copy without objects on the heap.
   */
  default long copy(long id, ByteBuf out) throws IOException {
    Document d = get(id);
    if (d == null) {
      return -1;
    }
    out.writeBytes(d.body());
    return d.sequence();
  }

  /**
   * Whether the document cache is in this process ({@link #copyIfCached} can answer hits), so that
   * per-document reads cost no network round trip and need no batching.
   */
  default boolean cachesInProcess() {
    return false;
  }

  /**
   * Whether a {@link #get} now most likely neither waits for the disk nor for the network: the
   * cache is in process and the index and queue reads of late found their pages in memory. A
   * network thread may then read a cache miss itself instead of handing it to a worker. A guess (a
   * page may still have to come from disk); false whenever the source cannot tell.
   */
  default boolean readsInMemory() {
    return false;
  }

  /**
   * The newest versions of several documents; the result has one slot per requested ID, in order,
   * null where absent or deleted. Implementations batch (one cache multi-get, sorted index
   * lookups).
   */
  Document[] getAll(long[] ids) throws IOException;

  /**
   * How far reads of this source see partition {@code partition} of the update log that feeds it
   * (docs/kafka.md, "Read-your-writes"): the offset of the first message whose write a read may not
   * see yet, every earlier message of the partition being visible to any read that starts after
   * this returns; -1 when nothing of that partition is visible here (and always, by default, for a
   * source not fed by a log). Cheap enough for every request: no sync, no waiting.
   *
   * @throws IllegalArgumentException for a partition the source cannot follow
   */
  default long visibleLogPosition(int partition) throws IOException {
    return -1;
  }

  /**
   * Whether this source takes its documents from an update log: a shard in Kafka mode, or a replica
   * of one (false by default).
   */
  default boolean fedByLog() {
    return false;
  }

  /** The field groups this source serves ({@link FieldGroups#NONE} by default). */
  default FieldGroups groups() {
    return FieldGroups.NONE;
  }

  /**
   * Group {@code group}'s projection of the newest version of each ID (its sequence is the
   * document's), one slot per ID, null where the document is absent, deleted or expired, or has no
   * projection for that group (written before the group was configured and not re-projected since).
   *
   * @throws IllegalArgumentException if {@code group} is not one of {@link #groups()}
   */
  default Document[] getAll(long[] ids, String group) throws IOException {
    throw new IllegalArgumentException("no field groups are configured here");
  }

  /**
   * Group {@code group}'s projections for one request, copied one document at a time (see {@link
   * Projections}). The default goes through {@link #getAll(long[], String)}; a store with an
   * in-process cache copies each projection straight out of it.
   *
   * @throws IllegalArgumentException if {@code group} is not one of {@link #groups()}
   */
  default Projections projections(String group) {
    GroupReads.check(groups(), group);
    return new Projections() {
      @Override
      public long copy(long id, ByteBuf out) throws IOException {
        Document d = getAll(new long[] {id}, group)[0];
        if (d == null) {
          return -1;
        }
        out.writeBytes(d.body());
        return d.sequence();
      }

      @Override
      public void close() {}
    };
  }

  /**
   * One request's reads of one group's projections. Not thread-safe: one per request, closed when
   * the request is answered (that counts its reads in the group's metrics and frees its buffers).
   */
  interface Projections extends AutoCloseable {
    /**
     * The group's projection of the newest version of {@code id} appended to {@code out} and that
     * version's sequence returned, or -1 with {@code out} unchanged where {@link
     * DocumentSource#getAll(long[], String)} has null.
     */
    long copy(long id, ByteBuf out) throws IOException;

    @Override
    void close();
  }
}
