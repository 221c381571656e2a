package io.docstore.bench.engines;

import java.nio.file.Path;

/**
 * What every engine is opened with.
 *
 * @param dir a fresh, empty directory the engine owns
 * @param memoryBytes the memory budget for the engine's own caches (block cache, Bloom filters);
 *     every engine gets the same budget
 * @param writeBufferBytes the size of the in-memory write buffer (memtable) where the engine has
 *     one, and of the files whose space is reclaimed whole: BlobDB's blob files and, in the churn
 *     workload, docstore's queue segments (the runner scales it there to the run's size)
 * @param blockBytes the one data block size of every block-based engine, raw bytes before
 *     compression: docstore's queue block size and RocksDB's and LevelDB's {@code block_size}
 *     (LMDB's page is the OS page, lsmtree has no blocks); the runner passes docstore's default
 *     queue block size, 8 KiB, unless {@code --block-bytes} says otherwise
 *     (docs/benchmarks/engines.md)
 */
public record EngineSettings(Path dir, long memoryBytes, long writeBufferBytes, int blockBytes) {

  public EngineSettings {
    if (memoryBytes <= 0 || writeBufferBytes <= 0 || blockBytes <= 0) {
      throw new IllegalArgumentException("sizes must be positive");
    }
  }
}
