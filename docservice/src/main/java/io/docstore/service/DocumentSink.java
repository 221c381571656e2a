package io.docstore.service;

import java.io.Closeable;
import java.io.IOException;
import java.util.List;

/**
 * What the update paths (admin HTTP, inbox, import) need from the store. Every method returns only
 * when its updates are durable under the configured sync policy and readable on this node
 * (read-your-writes). Implementations are thread-safe.
 *
 * <p>An {@link IOException} means nothing in the call was acknowledged; some of its updates may
 * still become visible later (they may have reached the queue), which is why re-applying a batch is
 * the recovery (updates are idempotent: the newest version wins).
 */
public interface DocumentSink {

  /** Applies {@code updates} in order with one durability wait for the whole batch. */
  List<Written> apply(List<Update> updates) throws IOException;

  /**
   * A sequence number at least that of every update applied so far: every update applied after this
   * returns gets a higher one.
   */
  long lastSequence();

  /**
   * The durable updates after sequence {@code after}, in sequence order, up to the last one durable
   * when this is called: how work whose recorded progress may lag the store (the inbox resuming a
   * file) finds out which of its updates got in.
   */
  Replay replay(long after) throws IOException;

  /** Updates read back from the store in sequence order (one reader; close it). */
  interface Replay extends Closeable {

    /** The next update (a delete has a null body), or null past the last one. */
    Update next() throws IOException;

    @Override
    void close();
  }

  default Written put(long id, byte[] body) throws IOException {
    return apply(List.of(Update.put(id, body))).get(0);
  }

  default Written delete(long id) throws IOException {
    return apply(List.of(Update.delete(id))).get(0);
  }
}
