package io.docstore.bench.engines;

import java.io.IOException;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.CompressionType;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * RocksDB (rocksdbjni) with the settings its tuning guide recommends for point lookups: Bloom
 * filter 10 bits/key (full filters), an LRU block cache of the shared memory budget, index and
 * filter blocks in that cache (L0's pinned), LZ4, level compaction with dynamic level sizes, two
 * background jobs (two cores), WAL on and written per batch without fsync. The BlobDB variant also
 * separates values of at least 256 bytes into blob files (LZ4, blob GC on), as docstore separates
 * documents from the index.
 */
final class RocksDbEngine implements Engine {

  static {
    RocksDB.loadLibrary();
  }

  private final LRUCache cache;
  private final BloomFilter bloom;
  private final Options options;
  private final WriteOptions writeOptions;
  private final ReadOptions readOptions;
  private final RocksDB db;
  private final WriteBatch batch = new WriteBatch();
  private final String settings;
  private final java.nio.file.Path sstDir;
  /** Input bytes per SST file of a bulk load (about half that after LZ4). */
  static final int SST_INPUT_BYTES = 64 << 20;

  RocksDbEngine(EngineSettings s, boolean blobs) throws IOException {
    sstDir = s.dir().resolve("bulk-sst");
    java.nio.file.Files.createDirectories(sstDir);
    cache = new LRUCache(s.memoryBytes());
    bloom = new BloomFilter(10, false);
    BlockBasedTableConfig table = new BlockBasedTableConfig()
        .setBlockCache(cache)
        .setFilterPolicy(bloom)
        .setCacheIndexAndFilterBlocks(true)
        .setPinL0FilterAndIndexBlocksInCache(true)
        .setBlockSize(s.blockBytes())
        .setFormatVersion(6);
    options = new Options()
        .setCreateIfMissing(true)
        .setTableFormatConfig(table)
        .setCompressionType(CompressionType.LZ4_COMPRESSION)
        .setBottommostCompressionType(CompressionType.LZ4_COMPRESSION)
        .setWriteBufferSize(s.writeBufferBytes())
        .setMaxWriteBufferNumber(2)
        .setLevelCompactionDynamicLevelBytes(true)
        .setMaxBackgroundJobs(2)
        .setBytesPerSync(1 << 20);
    if (blobs) {
      options.setEnableBlobFiles(true)
          .setMinBlobSize(256)
          .setBlobCompressionType(CompressionType.LZ4_COMPRESSION)
          .setEnableBlobGarbageCollection(true);
    }
    writeOptions = new WriteOptions().setSync(false).setDisableWAL(false);
    readOptions = new ReadOptions();
    try {
      db = RocksDB.open(options, s.dir().toString());
    } catch (RocksDBException e) {
      throw new IOException(e);
    }
    settings = "rocksdbjni " + RocksDB.rocksdbVersion() + (blobs ? " BlobDB(min_blob_size=256, LZ4, blob GC)" : "")
        + "; bloom 10 bits/key; LRU block cache " + s.memoryBytes() + " B with index+filter blocks"
        + "; block " + s.blockBytes() + " B; LZ4; write buffer " + s.writeBufferBytes() + " B x2"
        + "; level compaction, dynamic level bytes; 2 background jobs; WAL on, sync=false";
  }

  @Override
  public void put(byte[] key, byte[] value) throws IOException {
    try {
      batch.put(key, value);
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
    if (batch.count() == 0) {
      return;
    }
    try {
      db.write(writeOptions, batch);
      batch.clear();
    } catch (RocksDBException e) {
      throw new IOException(e);
    }
  }

  /**
   * RocksDB's recommended bulk path: {@code SstFileWriter} over sorted input, then
   * {@code ingestExternalFile} (files moved, not copied). The sorted input is cut into chunks of
   * {@value #SST_INPUT_BYTES} bytes, each written as its own SST file by one of {@code threads}
   * threads (chunks of sorted input do not overlap, so the files can be built in parallel and ingested
   * together into the bottom level).
   */
  @Override
  public void bulkLoad(java.nio.file.Path ndjson, int threads, int batch) throws IOException {
    flush();
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
    java.util.List<java.util.concurrent.Future<String>> files = new java.util.ArrayList<>();
    java.util.concurrent.Semaphore inFlight = new java.util.concurrent.Semaphore(threads + 1);
    int[] next = {0};
    try {
      BulkInput.chunks(ndjson, SST_INPUT_BYTES, (buf, n) -> {
        inFlight.acquireUninterruptibly();
        String path = sstDir.resolve(String.format("bulk-%06d.sst", next[0]++)).toString();
        files.add(pool.submit(() -> {
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
        try (org.rocksdb.IngestExternalFileOptions io = new org.rocksdb.IngestExternalFileOptions()
            .setMoveFiles(true)) {
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
      BulkInput.lines(buf, n, (id, b, off, len) -> {
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
    return "SstFileWriter on N threads (one file per " + (SST_INPUT_BYTES >> 20) + " MiB of sorted input) + ingestExternalFile(move)";
  }

  @Override
  public int backgroundJobs() throws IOException {
    try {
      return (int) (db.getLongProperty("rocksdb.num-running-flushes") + db.getLongProperty("rocksdb.num-running-compactions"));
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
    batch.close();
    readOptions.close();
    writeOptions.close();
    options.close();
    bloom.close();
    cache.close();
  }
}
