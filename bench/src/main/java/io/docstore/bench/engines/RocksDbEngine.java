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

  RocksDbEngine(EngineSettings s, boolean blobs) throws IOException {
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
