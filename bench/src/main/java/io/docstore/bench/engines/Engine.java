package io.docstore.bench.engines;

import java.io.Closeable;
import java.io.IOException;

/**
 * One key-value engine under test, opened on a fresh directory by {@link Engines#open}.
 *
 * <p>Durability contract, the same for every engine: what a thread put before its last {@link
 * #flush()} is readable and survives a crash of this process, not necessarily of the machine (no
 * fsync per write; write-ahead logs stay on). Puts after that flush may be buffered in the engine's
 * own batch (RocksDB/LevelDB write batch, LMDB write transaction, docstore's queue writer) and are
 * not guaranteed to be visible to {@link #get} until the next flush. A put is therefore
 * acknowledged under the contract only by a flush: one durable write is {@code put} then {@code
 * flush}. A {@link #delete} is a write like a put: buffered the same way, acknowledged by the next
 * flush.
 *
 * <p>Thread-safety: any number of threads may call {@link #get}, {@link #put}, {@link #delete} and
 * {@link #flush} at once. A flush ends the batch of the calling thread's puts; an engine may keep
 * one batch per thread (RocksDB, LevelDB, LMDB) or one batch shared by all threads that any flush
 * ends (docstore), so a flush may also make other threads' puts durable, never fewer than the
 * caller's. A thread that puts must flush before it ends: {@link #close()} flushes only the calling
 * thread's batch. Two threads that put the same key at once get one of the two values, in the
 * engine's own commit order.
 */
public interface Engine extends Closeable {

  void put(byte[] key, byte[] value) throws IOException;

  /**
   * Removes {@code key}: after the next {@link #flush()}, {@link #get} returns null for it (until a
   * later put). Buffered in the calling thread's batch like a put.
   */
  void delete(byte[] key) throws IOException;

  /**
   * Whether the engine enforces an expiry per write itself ({@link #put(byte[], byte[], long)}):
   * docstore's store. On every other engine the churn workload deletes an expired value explicitly,
   * as an application would.
   */
  default boolean expires() {
    return false;
  }

  /**
   * A put of a value that {@link #get} no longer returns once the wall clock reaches {@code
   * expiresAtMillis} (epoch milliseconds); only where {@link #expires()}.
   */
  default void put(byte[] key, byte[] value, long expiresAtMillis) throws IOException {
    throw new UnsupportedOperationException("this engine has no expiry per write: " + settings());
  }

  /** The value last flushed for {@code key}, or null when there is none. */
  byte[] get(byte[] key) throws IOException;

  /** Ends the current batch; see the class comment for what that guarantees. */
  void flush() throws IOException;

  /**
   * The bulk workload: loads every line of a {@link BulkInput} file as fast as the engine can and
   * returns with all of it readable and durable under the contract above. The default is the
   * engine's ordinary batched write path ({@code batch} puts per {@link #flush()}); engines with a
   * bulk path of their own override it and {@link #bulkPath()}.
   */
  default void bulkLoad(java.nio.file.Path ndjson, int threads, int batch) throws IOException {
    long[] n = {0};
    BulkInput.forEachLine(
        ndjson,
        (id, buf, off, len) -> {
          put(BulkInput.key(id), java.util.Arrays.copyOfRange(buf, off, off + len));
          if (++n[0] % batch == 0) {
            flush();
          }
        });
    flush();
  }

  /** How {@link #bulkLoad} loads, one line for the table. */
  default String bulkPath() {
    return "no bulk path: its batched writes, one thread";
  }

  /**
   * False for a reference that only measures a speed (e.g. LZ4 compression) and keeps nothing to
   * read.
   */
  default boolean keepsData() {
    return true;
  }

  /**
   * Whether the bulk workload can close and reopen it and find everything it loaded (see
   * LsmtreeEngine).
   */
  default boolean reopensAfterBulk() {
    return true;
  }

  /**
   * What the engine says about its own space, for the churn workload: docstore's store gives its
   * space amplification (its estimate of stored over live stored bytes), the bytes its space
   * reclamation relocated and reclaimed, and the bytes it stored; the others say nothing (an empty
   * map).
   */
  default java.util.Map<String, Number> spaceStats() throws IOException {
    return java.util.Map.of();
  }

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
