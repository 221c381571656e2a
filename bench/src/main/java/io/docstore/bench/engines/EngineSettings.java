package io.docstore.bench.engines;

import java.nio.file.Path;

/**
 * What every engine is opened with.
 *
 * @param dir a fresh, empty directory the engine owns
 * @param memoryBytes the memory budget for the engine's own caches (block cache, Bloom filters);
 *     every engine gets the same budget
 * @param writeBufferBytes the size of the in-memory write buffer (memtable) where the engine has one
 * @param blockBytes the data block size for block-based engines (4 KiB for small values, larger for
 *     ~1 KB documents where the engine's docs recommend it)
 */
public record EngineSettings(Path dir, long memoryBytes, long writeBufferBytes, int blockBytes) {

  public EngineSettings {
    if (memoryBytes <= 0 || writeBufferBytes <= 0 || blockBytes <= 0) {
      throw new IllegalArgumentException("sizes must be positive");
    }
  }
}
