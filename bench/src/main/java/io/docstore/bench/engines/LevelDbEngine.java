package io.docstore.bench.engines;

import static org.fusesource.leveldbjni.JniDBFactory.factory;


import java.io.IOException;
import org.fusesource.leveldbjni.JniDBFactory;
import org.iq80.leveldb.CompressionType;
import org.iq80.leveldb.DB;
import org.iq80.leveldb.Options;
import org.iq80.leveldb.WriteBatch;
import org.iq80.leveldb.WriteOptions;

/**
 * LevelDB 1.8 (native, through leveldbjni-all) as its documentation recommends for bulk random
 * writes and point reads: a large write buffer, the block cache of the shared memory budget, Snappy
 * (LevelDB's own compressor; leveldbjni offers no LZ4), writes in write batches without sync. The
 * JNI binding exposes no filter policy, so LevelDB runs without Bloom filters, as it did in the
 * Indeed article.
 */
final class LevelDbEngine implements Engine {

  private final DB db;
  private final WriteOptions writeOptions = new WriteOptions().sync(false);
  private WriteBatch batch;
  private int pending;
  private final String settings;

  LevelDbEngine(EngineSettings s) throws IOException {
    Options options = new Options()
        .createIfMissing(true)
        .cacheSize(s.memoryBytes())
        .writeBufferSize((int) Math.min(Integer.MAX_VALUE, s.writeBufferBytes()))
        .blockSize(s.blockBytes())
        .compressionType(CompressionType.SNAPPY)
        .maxOpenFiles(10_000);
    db = factory.open(s.dir().toFile(), options);
    batch = db.createWriteBatch();
    settings = "leveldbjni-all 1.8 (native LevelDB 1.8, JniDBFactory " + JniDBFactory.VERSION + "); block cache " + s.memoryBytes()
        + " B; write buffer " + s.writeBufferBytes() + " B; block " + s.blockBytes()
        + " B; Snappy; no Bloom filter (not exposed by JNI); max_open_files 10000; sync=false";
  }

  @Override
  public void put(byte[] key, byte[] value) {
    batch.put(key, value);
    pending++;
  }

  @Override
  public byte[] get(byte[] key) {
    return db.get(key);
  }

  @Override
  public void flush() throws IOException {
    if (pending == 0) {
      return;
    }
    db.write(batch, writeOptions);
    batch.close();
    batch = db.createWriteBatch();
    pending = 0;
  }

  @Override
  public String settings() {
    return settings;
  }

  @Override
  public void close() throws IOException {
    flush();
    batch.close();
    db.close();
  }
}
