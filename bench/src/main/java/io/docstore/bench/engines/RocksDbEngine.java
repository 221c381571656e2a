package io.docstore.bench.engines;

import io.docstore.index.IndexOptions;
import java.io.IOException;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.CompressionType;
import org.rocksdb.DataBlockIndexType;
import org.rocksdb.Env;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.Priority;
import org.rocksdb.RateLimiter;
import org.rocksdb.RateLimiterMode;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * RocksDB (rocksdbjni) configured for point lookups as RocksDB's own documentation recommends;
 * every setting, the page it comes from and why is in docs/benchmarks/engines.md. In short:
 *
 * <ul>
 *   <li>Memory: the whole shared budget is one {@link LRUCache} (auto-sharded) holding data, index
 *       and filter blocks ({@code cache_index_and_filter_blocks}), with a high-priority pool of
 *       {@value #HIGH_PRI_POOL_RATIO} of it ({@code high_pri_pool_ratio}, the C++ default;
 *       RocksJava's {@code new LRUCache(capacity)} passes 0, which would leave index and filter
 *       blocks no protection) into which index and filter blocks are inserted ({@code
 *       cache_index_and_filter_blocks_with_high_priority}); L0's are pinned ({@code
 *       pin_l0_filter_and_index_blocks_in_cache}). No row cache and no blob cache (RocksJava has no
 *       blob cache option): docstore's engine caches blocks, not records, either.
 *   <li>Filters: full-key Bloom filter, 10 bits/key, in {@code format_version} {@value
 *       #FORMAT_VERSION} (the library's default; 5 and later build the cache-local "fast" Bloom
 *       filter), on every level: {@code optimize_filters_for_hits} stays off because the jobs
 *       workload looks up 10% missing IDs. Ribbon filters are not in RocksJava 11.8.1 (and
 *       RocksDB's own break-even says Bloom for filters that live less than an hour, as a
 *       benchmark's do).
 *   <li>Data blocks: {@code block_size} = the bench's one block size for every engine ({@link
 *       EngineSettings#blockBytes}), LZ4 (also bottommost), and the data block hash index ({@code
 *       kDataBlockBinaryAndHash}, util ratio 0.75), RocksDB's point-lookup index for blocks.
 *   <li>Background work, as docstore's index does it: flush and compaction threads at a lower CPU
 *       priority ({@code Env::LowerThreadPoolCPUPriority} on the HIGH and LOW pools; RocksDB's
 *       {@code CpuPriority::kLow} is nice 19, the only level RocksJava offers, where docstore uses
 *       nice 10), unless {@code DOCSTORE_BENCH_BACKGROUND_NICE=0} turns docstore's off too; and
 *       RocksDB's auto-tuned rate limiter on flush and compaction writes, whose range [limit/20,
 *       limit] is set so that its floor is docstore's {@code index.background-write-rate} (64
 *       MiB/s) and its ceiling twenty times that (docstore lifts its limit while someone waits;
 *       RocksDB raises it when its background writes keep draining the limiter).
 *   <li>Write path unchanged: write buffer of the shared size x2, level compaction with dynamic
 *       level bytes, two background jobs (two cores), {@code bytes_per_sync} 1 MiB, WAL on and
 *       written per batch without fsync (the shared contract: a process crash after flush loses
 *       nothing).
 *   <li>Concurrent writers: one {@link WriteBatch} per thread (a {@code WriteBatch} is not
 *       thread-safe), written by that thread's {@link #flush()} with {@code db.write}, which is
 *       thread-safe: concurrent writers meet in RocksDB's own write queue, where one of them writes
 *       the WAL for all (RocksDB's group commit), as when RocksDB is used from several threads.
 * </ul>
 *
 * <p>The BlobDB variant also separates values of at least 256 bytes into blob files (LZ4, blob GC
 * on with its default age cutoff and force threshold), as docstore separates documents from the
 * index; its blob files are of the write buffer's size, as the Integrated BlobDB post suggests.
 * Every BlobDB setting and its source: docs/benchmarks/engines.md.
 */
final class RocksDbEngine implements Engine {

  static {
    RocksDB.loadLibrary();
  }

  /**
   * Share of the block cache reserved for index and filter blocks (LRUCacheOptions' C++ default).
   */
  static final double HIGH_PRI_POOL_RATIO = 0.5;

  static final int FORMAT_VERSION = 7;
  static final int BLOOM_BITS_PER_KEY = 10;

  /**
   * BlobDB: values of at least this many bytes go to blob files (the job documents do; the 96-byte
   * values of indeed-kv stay in the SST files).
   */
  static final int MIN_BLOB_SIZE = 256;

  /**
   * BlobDB's blob GC: the valid blobs of the oldest quarter of blob files are relocated when a
   * compaction meets them, and no compaction is forced for garbage (1.0): both RocksDB's defaults,
   * which its BlobDB documentation gives as the write-amplification/space-amplification trade-off
   * without recommending other values; set explicitly so that the settings line shows them.
   */
  static final double BLOB_GC_AGE_CUTOFF = 0.25;

  static final double BLOB_GC_FORCE_THRESHOLD = 1.0;

  /** The auto-tuned rate limiter moves within [limit / 20, limit] (RocksDB's rate_limiter.h). */
  static final int RATE_LIMITER_RANGE = 20;

  private final LRUCache cache;
  private final BloomFilter bloom;
  private final RateLimiter rateLimiter;
  private final Options options;
  private final WriteOptions writeOptions;
  private final ReadOptions readOptions;
  private final RocksDB db;

  /**
   * The calling thread's batch; every batch ever made is in {@link #batches}, closed by {@link
   * #close()}.
   */
  private final ThreadLocal<WriteBatch> batch = ThreadLocal.withInitial(this::newBatch);

  private final java.util.List<WriteBatch> batches = new java.util.ArrayList<>();
  private final String settings;
  private final java.nio.file.Path sstDir;

  /** Input bytes per SST file of a bulk load (about half that after LZ4). */
  static final int SST_INPUT_BYTES = 64 << 20;

  RocksDbEngine(EngineSettings s, boolean blobs) throws IOException {
    sstDir = s.dir().resolve("bulk-sst");
    java.nio.file.Files.createDirectories(sstDir);
    cache = new LRUCache(s.memoryBytes(), -1, false, HIGH_PRI_POOL_RATIO);
    bloom = new BloomFilter(BLOOM_BITS_PER_KEY, false);
    BlockBasedTableConfig table =
        new BlockBasedTableConfig()
            .setBlockCache(cache)
            .setFilterPolicy(bloom)
            .setCacheIndexAndFilterBlocks(true)
            .setCacheIndexAndFilterBlocksWithHighPriority(true)
            .setPinL0FilterAndIndexBlocksInCache(true)
            .setBlockSize(s.blockBytes())
            .setDataBlockIndexType(DataBlockIndexType.kDataBlockBinaryAndHash)
            .setDataBlockHashTableUtilRatio(0.75)
            .setFormatVersion(FORMAT_VERSION);
    long floor = IndexOptions.defaults().backgroundWriteRate();
    rateLimiter =
        new RateLimiter(
            floor * RATE_LIMITER_RANGE,
            RateLimiter.DEFAULT_REFILL_PERIOD_MICROS,
            RateLimiter.DEFAULT_FAIRNESS,
            RateLimiterMode.WRITES_ONLY,
            true);
    boolean lowPriority = lowerBackgroundPriority();
    if (lowPriority) {
      Env env = Env.getDefault();
      env.lowerThreadPoolCPUPriority(Priority.HIGH);
      env.lowerThreadPoolCPUPriority(Priority.LOW);
    }
    options =
        new Options()
            .setCreateIfMissing(true)
            .setTableFormatConfig(table)
            .setCompressionType(CompressionType.LZ4_COMPRESSION)
            .setBottommostCompressionType(CompressionType.LZ4_COMPRESSION)
            .setWriteBufferSize(s.writeBufferBytes())
            .setMaxWriteBufferNumber(2)
            .setLevelCompactionDynamicLevelBytes(true)
            .setOptimizeFiltersForHits(false)
            .setMaxBackgroundJobs(2)
            .setBytesPerSync(1 << 20)
            .setRateLimiter(rateLimiter);
    if (blobs) {
      options
          .setEnableBlobFiles(true)
          .setMinBlobSize(MIN_BLOB_SIZE)
          .setBlobFileSize(s.writeBufferBytes())
          .setBlobCompressionType(CompressionType.LZ4_COMPRESSION)
          .setEnableBlobGarbageCollection(true)
          .setBlobGarbageCollectionAgeCutoff(BLOB_GC_AGE_CUTOFF)
          .setBlobGarbageCollectionForceThreshold(BLOB_GC_FORCE_THRESHOLD);
    }
    writeOptions = new WriteOptions().setSync(false).setDisableWAL(false);
    readOptions = new ReadOptions();
    try {
      db = RocksDB.open(options, s.dir().toString());
    } catch (RocksDBException e) {
      throw new IOException(e);
    }
    settings =
        "rocksdbjni "
            + RocksDB.rocksdbVersion()
            + (blobs
                ? " BlobDB(min_blob_size="
                    + MIN_BLOB_SIZE
                    + ", blob_file_size="
                    + s.writeBufferBytes()
                    + ", LZ4, blob GC age cutoff "
                    + BLOB_GC_AGE_CUTOFF
                    + ", force threshold "
                    + BLOB_GC_FORCE_THRESHOLD
                    + ")"
                : "")
            + "; LRU block cache "
            + s.memoryBytes()
            + " B (all of the budget), high_pri_pool_ratio "
            + HIGH_PRI_POOL_RATIO
            + ", index+filter blocks in it at high priority, L0's pinned; full Bloom "
            + BLOOM_BITS_PER_KEY
            + " bits/key, format_version "
            + FORMAT_VERSION
            + ", optimize_filters_for_hits off; block "
            + s.blockBytes()
            + " B with data block hash index; LZ4; write buffer "
            + s.writeBufferBytes()
            + " B x2"
            + "; level compaction, dynamic level bytes; 2 background jobs"
            + (lowPriority
                ? " at low CPU priority (HIGH and LOW pools)"
                : " at normal CPU priority")
            + "; auto-tuned rate limiter "
            + floor
            + ".."
            + floor * RATE_LIMITER_RANGE
            + " B/s on flush+compaction writes; bytes_per_sync 1 MiB; WAL on, sync=false";
  }

  /**
   * As docstore's engine: lowered unless {@code DOCSTORE_BENCH_BACKGROUND_NICE} turns docstore's
   * off (0).
   */
  static boolean lowerBackgroundPriority() {
    String nice = System.getenv("DOCSTORE_BENCH_BACKGROUND_NICE");
    return nice == null || nice.isBlank() || Integer.parseInt(nice.trim()) > 0;
  }

  /** For tests: the open database. */
  RocksDB db() {
    return db;
  }

  /** For tests: the rate limiter of flush and compaction writes. */
  RateLimiter rateLimiter() {
    return rateLimiter;
  }

  private WriteBatch newBatch() {
    WriteBatch b = new WriteBatch();
    synchronized (batches) {
      batches.add(b);
    }
    return b;
  }

  @Override
  public void put(byte[] key, byte[] value) throws IOException {
    try {
      batch.get().put(key, value);
    } catch (RocksDBException e) {
      throw new IOException(e);
    }
  }

  @Override
  public void delete(byte[] key) throws IOException {
    try {
      batch.get().delete(key);
    } catch (RocksDBException e) {
      throw new IOException(e);
    }
  }

  @Override
  public byte[] get(byte[] key) throws IOException {
    try {
      return db.get(readOptions, key);
    } catch (RocksDBException e) {
      throw new IOException(e);
    }
  }

  @Override
  public void flush() throws IOException {
    WriteBatch b = batch.get();
    if (b.count() == 0) {
      return;
    }
    try {
      db.write(writeOptions, b);
      b.clear();
    } catch (RocksDBException e) {
      throw new IOException(e);
    }
  }

  /**
   * RocksDB's recommended bulk path: {@code SstFileWriter} over sorted input, then {@code
   * ingestExternalFile} (files moved, not copied). The sorted input is cut into chunks of {@value
   * #SST_INPUT_BYTES} bytes, each written as its own SST file by one of {@code threads} threads
   * (chunks of sorted input do not overlap, so the files can be built in parallel and ingested
   * together into the bottom level).
   */
  @Override
  public void bulkLoad(java.nio.file.Path ndjson, int threads, int batch) throws IOException {
    flush();
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(threads);
    java.util.List<java.util.concurrent.Future<String>> files = new java.util.ArrayList<>();
    java.util.concurrent.Semaphore inFlight = new java.util.concurrent.Semaphore(threads + 1);
    int[] next = {0};
    try {
      BulkInput.chunks(
          ndjson,
          SST_INPUT_BYTES,
          (buf, n) -> {
            inFlight.acquireUninterruptibly();
            String path = sstDir.resolve(String.format("bulk-%06d.sst", next[0]++)).toString();
            files.add(
                pool.submit(
                    () -> {
                      try {
                        writeSst(path, buf, n);
                        return path;
                      } finally {
                        inFlight.release();
                      }
                    }));
          });
      java.util.List<String> paths = new java.util.ArrayList<>();
      for (java.util.concurrent.Future<String> f : files) {
        paths.add(f.get());
      }
      if (!paths.isEmpty()) {
        try (org.rocksdb.IngestExternalFileOptions io =
            new org.rocksdb.IngestExternalFileOptions().setMoveFiles(true)) {
          db.ingestExternalFile(paths, io);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IOException(e.getCause());
    } catch (RocksDBException e) {
      throw new IOException(e);
    } finally {
      pool.shutdownNow();
    }
  }

  private void writeSst(String path, byte[] buf, int n) throws IOException {
    try (org.rocksdb.EnvOptions env = new org.rocksdb.EnvOptions();
        org.rocksdb.SstFileWriter w = new org.rocksdb.SstFileWriter(env, options)) {
      w.open(path);
      BulkInput.lines(
          buf,
          n,
          (id, b, off, len) -> {
            try {
              w.put(BulkInput.key(id), java.util.Arrays.copyOfRange(b, off, off + len));
            } catch (RocksDBException e) {
              throw new IOException(e);
            }
          });
      w.finish();
    } catch (RocksDBException e) {
      throw new IOException(e);
    }
  }

  @Override
  public String bulkPath() {
    return "SstFileWriter on N threads (one file per "
        + (SST_INPUT_BYTES >> 20)
        + " MiB of sorted input) + ingestExternalFile(move)";
  }

  @Override
  public int backgroundJobs() throws IOException {
    try {
      return (int)
          (db.getLongProperty("rocksdb.num-running-flushes")
              + db.getLongProperty("rocksdb.num-running-compactions"));
    } catch (RocksDBException e) {
      throw new IOException(e);
    }
  }

  @Override
  public String settings() {
    return settings;
  }

  @Override
  public void close() throws IOException {
    flush();
    db.close();
    synchronized (batches) {
      batches.forEach(WriteBatch::close);
      batches.clear();
    }
    readOptions.close();
    writeOptions.close();
    options.close();
    rateLimiter.close();
    bloom.close();
    cache.close();
  }
}
