package io.docstore.bench.engines;

import java.io.Closeable;
import java.io.IOException;

/**
 * One key-value engine under test, opened on a fresh directory by {@link Engines#open}.
 *
 * <p>Durability contract, the same for every engine: what was put before the last {@link #flush()}
 * is readable and survives a crash of this process, not necessarily of the machine (no fsync per
 * write; write-ahead logs stay on). Puts after the last flush may be buffered in the engine's own
 * batch (RocksDB/LevelDB write batch, LMDB write transaction, docstore's queue writer) and are not
 * guaranteed to be visible to {@link #get} until the next flush.
 *
 * <p>Thread-safety: one writer thread (put/flush) and any number of reader threads (get) at once.
 */
public interface Engine extends Closeable {

  void put(byte[] key, byte[] value) throws IOException;

  /** The value last flushed for {@code key}, or null when there is none. */
  byte[] get(byte[] key) throws IOException;

  /** Ends the current batch; see the class comment for what that guarantees. */
  void flush() throws IOException;

  /** The settings in effect, one line, for the results file. */
  String settings();

  /**
   * How many flushes and compactions the engine is running right now, or -1 when it does not say.
   * Polled about every millisecond by a sampler thread next to the reader and writer, so it must be
   * cheap and thread-safe.
   */
  default int backgroundJobs() throws IOException {
    return -1;
  }
}
