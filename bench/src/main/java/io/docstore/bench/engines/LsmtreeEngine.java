package io.docstore.bench.engines;

import com.indeed.lsmtree.core.StorageType;
import com.indeed.lsmtree.core.Store;
import com.indeed.lsmtree.core.StoreBuilder;
import com.indeed.util.serialization.array.ByteArraySerializer;
import java.io.IOException;
import java.util.Arrays;

/**
 * Indeed lsmtree-core 1.0.7, docstore's ancestor, through its {@code StoreBuilder} (the project
 * publishes no tuning guide; its README gives none; docs/benchmarks/engines.md): a volatile
 * generation (memtable + transaction log, not fsynced per write) of the shared write buffer size,
 * the whole shared memory budget as Bloom filter memory (it has no block cache: values are read
 * through its mapped files, the page cache is its cache), inline storage (no blocks, so the bench's
 * block size does not apply). It has no batch API: each put goes to its transaction log's 64 KiB
 * in-process buffer at once (see {@link #flush()} for what that means for the durability contract).
 * Concurrent writers need nothing of this class: its {@code Store} is thread-safe (the transaction
 * log's writer is synchronized, the memory table a concurrent skip list), so two threads' puts go
 * straight to it. Must run in a JVM whose class path is {@code lsmtree-lib} (Guava 16), never next
 * to our Guava; see {@link Engines#needsIsolatedClassPath}.
 */
final class LsmtreeEngine implements Engine {

  private final Store<byte[], byte[]> store;
  private final String settings;

  LsmtreeEngine(EngineSettings s) throws IOException {
    store =
        new StoreBuilder<>(s.dir().toFile(), new ByteArraySerializer(), new ByteArraySerializer())
            .setComparator(Arrays::compareUnsigned)
            .setMaxVolatileGenerationSize(s.writeBufferBytes())
            .setStorageType(StorageType.INLINE)
            .setBloomFilterMemory(s.memoryBytes())
            .build();
    settings =
        "lsmtree-core 1.0.7; volatile generation "
            + s.writeBufferBytes()
            + " B; bloom filter memory "
            + s.memoryBytes()
            + " B; INLINE storage; transaction log not fsynced per write; own class path (Guava 16)";
  }

  @Override
  public void put(byte[] key, byte[] value) throws IOException {
    store.put(key, value);
  }

  @Override
  public void delete(byte[] key) throws IOException {
    store.delete(key);
  }

  @Override
  public byte[] get(byte[] key) throws IOException {
    return store.get(key);
  }

  /**
   * Nothing: lsmtree-core 1.0.7 has no call that hands its transaction log to the OS without an
   * fsync. Its log writer buffers up to 64 KiB in the process ({@code BasicRecordFile.Writer} over
   * a 64 KiB {@code BufferedFileDataOutputStream}), so a process crash can lose up to 64 KiB of
   * puts acknowledged by a flush: weaker than the shared contract, which favours lsmtree, not
   * docstore. {@code Store.sync()} would keep the contract only by fsyncing every batch, a stronger
   * (and slower) guarantee than any other engine gives, so it is not called
   * (docs/benchmarks/engines.md).
   */
  @Override
  public void flush() {}

  /**
   * No: after a bulk load of a few thousand ~1 KB documents, lsmtree-core 1.0.7 reopens with
   * documents missing or fails to reopen ({@code FileNotFoundException} on {@code latest/<n>.log}),
   * even with {@code sync()} before {@code close()}; waiting for its compactions before closing
   * hangs. The bulk workload verifies it before closing only (docs/benchmarks.md, "bulk").
   */
  @Override
  public boolean reopensAfterBulk() {
    return false;
  }

  @Override
  public String settings() {
    return settings;
  }

  @Override
  public void close() throws IOException {
    store.close();
  }
}
