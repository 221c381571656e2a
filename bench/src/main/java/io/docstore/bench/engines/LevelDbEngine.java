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
 * LevelDB 1.8 (native, through leveldbjni-all) as its documentation ({@code doc/index.md},
 * "Performance") describes for point reads; sources and reasons in docs/benchmarks/engines.md: the
 * whole shared memory budget as its LRU block cache (its only sizeable cache; index blocks of open
 * tables live in the table cache, {@code max_open_files} 10000, outside the budget), a write buffer
 * of the shared size, Snappy (LevelDB's own compressor; leveldbjni offers no LZ4), the bench's one
 * block size ({@link EngineSettings#blockBytes}), writes in write batches with the log on and no
 * sync (the shared contract: a process crash after {@link #flush()} loses nothing). LevelDB's
 * documentation recommends a Bloom filter policy for random reads, but the JNI binding exposes
 * none, so LevelDB runs without one, as it did in the Indeed article.
 *
 * <p>Concurrent writers: one {@link WriteBatch} per thread (a batch is not thread-safe), written by
 * that thread's {@link #flush()} with {@code db.write}; LevelDB's {@code DB} is thread-safe and
 * queues concurrent writes itself.
 */
final class LevelDbEngine implements Engine {

  private final DB db;
  private final WriteOptions writeOptions = new WriteOptions().sync(false);

  /**
   * The calling thread's batch; every open batch is in {@link #batches}, closed by {@link
   * #close()}.
   */
  private final ThreadLocal<Batch> batch = ThreadLocal.withInitial(this::newBatch);

  private final java.util.Set<Batch> batches = new java.util.HashSet<>();
  private final String settings;

  LevelDbEngine(EngineSettings s) throws IOException {
    Options options =
        new Options()
            .createIfMissing(true)
            .cacheSize(s.memoryBytes())
            .writeBufferSize((int) Math.min(Integer.MAX_VALUE, s.writeBufferBytes()))
            .blockSize(s.blockBytes())
            .compressionType(CompressionType.SNAPPY)
            .maxOpenFiles(10_000);
    db = factory.open(s.dir().toFile(), options);
    settings =
        "leveldbjni-all 1.8 (native LevelDB 1.8, JniDBFactory "
            + JniDBFactory.VERSION
            + "); block cache "
            + s.memoryBytes()
            + " B; write buffer "
            + s.writeBufferBytes()
            + " B; block "
            + s.blockBytes()
            + " B; Snappy; no Bloom filter (not exposed by JNI); max_open_files 10000; sync=false";
  }

  /** One thread's write batch and how many puts it holds. */
  private static final class Batch {
    WriteBatch batch;
    int pending;
  }

  private Batch newBatch() {
    Batch b = new Batch();
    b.batch = db.createWriteBatch();
    synchronized (batches) {
      batches.add(b);
    }
    return b;
  }

  @Override
  public void put(byte[] key, byte[] value) {
    Batch b = batch.get();
    b.batch.put(key, value);
    b.pending++;
  }

  @Override
  public void delete(byte[] key) {
    Batch b = batch.get();
    b.batch.delete(key);
    b.pending++;
  }

  @Override
  public byte[] get(byte[] key) {
    return db.get(key);
  }

  @Override
  public void flush() throws IOException {
    Batch b = batch.get();
    if (b.pending == 0) {
      return;
    }
    db.write(b.batch, writeOptions);
    b.batch.close();
    b.batch = db.createWriteBatch();
    b.pending = 0;
  }

  @Override
  public String settings() {
    return settings;
  }

  @Override
  public void close() throws IOException {
    flush();
    synchronized (batches) {
      for (Batch b : batches) {
        b.batch.close();
      }
      batches.clear();
    }
    db.close();
  }
}
