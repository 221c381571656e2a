package io.docstore.bench.engines;

import io.docstore.index.IndexOptions;
import io.docstore.index.IndexStats;
import io.docstore.index.LsmIndex;
import io.docstore.queue.Appended;
import io.docstore.queue.DocQueue;
import io.docstore.queue.Op;
import io.docstore.queue.QueueOptions;
import io.docstore.queue.QueueRecord;
import io.docstore.service.bulk.BulkLoad;
import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;

/**
 * docstore through its public API, as Docstore v2 uses it: a value is appended to the queue
 * (compressed blocks) and the index maps the key's ID to the record's address. A key is 8 bytes,
 * read as a big-endian long with the sign bit cleared (the ID space is 63 bits); a get is an index
 * lookup, one read of the queue record (through the segment's mapping, or one positional read of
 * its block when the page cache is cold) and a check that the record carries that ID.
 *
 * <p>Batches: appends accumulate in the queue writer's open block and the (ID, address) pairs in
 * arrays; {@link #flush()} writes the open block (now readable) and only then puts the batch into
 * the index with one {@code putAll}, so the index never points at a record a reader cannot read,
 * and then hands the index's buffered WAL records to the OS ({@link LsmIndex#flushToOs()}): the
 * shared contract (a process crash after flush loses nothing) holds without re-indexing from the
 * queue on open, which this engine does not do (EngineCrashTest kills a writer to check).
 * Concurrent writers share that one batch under one lock ({@link #writeLock}): a put appends and
 * records its (ID, address) pair under it, so the pairs stay in queue order, and a flush by any
 * thread writes the block and indexes every pair recorded so far (the index has one writer, as in
 * the service, where the {@code Indexer} applies all records up to a writer's own under one lock).
 * Reads take no lock. Both use sync policy {@code none}, the peers' "WAL on, no fsync per write".
 * Memory budget (all off heap): an eighth for the index's resident Bloom filters, three quarters
 * for its page cache (used while reads through the tables' mappings wait for the disk: it keeps
 * cold lookups near one disk read), an eighth for the queue's decoded-block cache (compressed
 * blocks; hot documents are the memcached tier's job in the service, whose defaults favour index
 * pages the same way); see docs/benchmarks.md for the measured trade-off and
 * docs/benchmarks/engines.md for how the peers split the same budget. {@code
 * DOCSTORE_BENCH_SPLIT=b:p:q} in the environment (parts of the budget for bloom, index pages,
 * blocks) tries another split, and {@code DOCSTORE_BENCH_BACKGROUND_NICE=n} another CPU priority
 * for the index's background threads (default {@link IndexOptions#DEFAULT_BACKGROUND_NICE}, as in
 * the service; 0 = normal, and then RocksDB's flush and compaction pools keep their normal priority
 * too), and {@code DOCSTORE_BENCH_BLOCK_SIZE=bytes} another queue block size than the one every
 * engine gets ({@link EngineSettings#blockBytes}, by default the queue's own 8 KiB), and {@code
 * DOCSTORE_BENCH_MAPPED=false} positional reads instead of mapped ones for queue blocks and index
 * pages (default true, as in the service).
 */
final class DocstoreEngine implements Engine {

  private final DocQueue queue;
  private final LsmIndex index;

  /**
   * Guards the batch ({@link #ids}, {@link #addresses}, {@link #pending}) and the index's one
   * writer.
   */
  private final ReentrantLock writeLock = new ReentrantLock();

  private long[] ids = new long[1024];
  private long[] addresses = new long[1024];
  private int pending;
  private final String settings;

  DocstoreEngine(EngineSettings s) throws IOException {
    DocstoreConfig config = new DocstoreConfig(s);
    QueueOptions qo = config.queue().build();
    queue = DocQueue.open(s.dir().resolve("queue"), qo);
    LsmIndex opened;
    try {
      opened = LsmIndex.open(s.dir().resolve("index"), config.index);
    } catch (IOException | RuntimeException e) {
      queue.close();
      throw e;
    }
    index = opened;
    settings = config.describe(qo) + "; index updated per batch with putAll";
  }

  static long id(byte[] key) {
    if (key.length != 8) {
      throw new IllegalArgumentException(
          "docstore keys are 8-byte IDs, got " + key.length + " bytes");
    }
    long v = 0;
    for (byte b : key) {
      v = (v << 8) | (b & 0xff);
    }
    return v & Long.MAX_VALUE;
  }

  @Override
  public void put(byte[] key, byte[] value) throws IOException {
    append(id(key), Op.PUT, value);
  }

  /** A DELETE record in the queue, and a tombstone for the ID in the batch's index entries. */
  @Override
  public void delete(byte[] key) throws IOException {
    append(id(key), Op.DELETE, new byte[0]);
  }

  private void append(long id, Op op, byte[] body) throws IOException {
    writeLock.lock();
    try {
      Appended a = queue.writer().append(id, op, System.currentTimeMillis(), body);
      if (pending == ids.length) {
        ids = Arrays.copyOf(ids, pending * 2);
        addresses = Arrays.copyOf(addresses, pending * 2);
      }
      ids[pending] = id;
      addresses[pending] = op == Op.DELETE ? LsmIndex.DELETED : a.address();
      pending++;
    } finally {
      writeLock.unlock();
    }
  }

  @Override
  public byte[] get(byte[] key) throws IOException {
    long id = id(key);
    long address = index.get(id);
    if (address < 0) {
      return null;
    }
    QueueRecord r = queue.reader().get(address);
    if (r.id() != id) {
      throw new IOException(
          "index entry of id " + id + " points at address " + address + " holding id " + r.id());
    }
    return r.body();
  }

  @Override
  public void flush() throws IOException {
    writeLock.lock();
    try {
      if (pending == 0) {
        return;
      }
      queue.writer().flush();
      index.putAll(ids, addresses, pending);
      index.flushToOs();
      pending = 0;
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * The product's bulk path, the one {@code docstore import --bulk} runs ({@link
   * BulkLoad#loadInto}): lines parsed and validated on {@code threads} threads, queue blocks
   * LZ4-compressed on {@code threads} threads and written in order with one fsync, the (id,
   * address) pairs radix-sorted and written as one index file installed through the manifest.
   */
  @Override
  public void bulkLoad(java.nio.file.Path ndjson, int threads, int batch) throws IOException {
    flush();
    try (java.io.InputStream in = java.nio.file.Files.newInputStream(ndjson)) {
      BulkLoad.Result r =
          BulkLoad.loadInto(
              queue, index, in, threads, queue.options().maxBodyBytes(), 0, false, p -> {});
      if (r.failed() > 0) {
        throw new IOException(r.failed() + " invalid lines in " + ndjson + ": " + r.errors());
      }
    }
  }

  @Override
  public String bulkPath() {
    return "BulkLoad (docstore import --bulk): parse and LZ4 blocks on N threads, one fsync, index file ingested";
  }

  /**
   * The index's flush or compaction; the queue has no background work (blocks are written by the
   * writer).
   */
  @Override
  public int backgroundJobs() throws IOException {
    IndexStats s = index.stats();
    return s.flushRunning() || s.compactionRunning() ? 1 : 0;
  }

  @Override
  public String settings() {
    return settings;
  }

  @Override
  public void close() throws IOException {
    try {
      flush();
    } finally {
      try {
        index.close();
      } finally {
        queue.close();
      }
    }
  }
}
