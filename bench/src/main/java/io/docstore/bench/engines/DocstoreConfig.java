package io.docstore.bench.engines;

import io.docstore.index.IndexOptions;
import io.docstore.io.SyncPolicy;
import io.docstore.queue.QueueOptions;

/**
 * The queue and index options of both docstore engines ({@link DocstoreEngine}, the queue and index
 * directly; {@link StoreEngine}, the service's store over them) from the shared settings and the
 * {@code DOCSTORE_BENCH_*} overrides that {@link DocstoreEngine} documents, and the settings line
 * that describes them.
 */
final class DocstoreConfig {

  private final long bloomBytes;
  private final long pageCacheBytes;
  private final long blockCacheBytes;
  private final boolean mapped;
  private final int blockSize;
  final IndexOptions index;

  DocstoreConfig(EngineSettings s) {
    long[] split = split(System.getenv("DOCSTORE_BENCH_SPLIT"));
    long parts = split[0] + split[1] + split[2];
    bloomBytes = s.memoryBytes() * split[0] / parts;
    pageCacheBytes = s.memoryBytes() * split[1] / parts;
    blockCacheBytes = s.memoryBytes() - bloomBytes - pageCacheBytes;
    String block = System.getenv("DOCSTORE_BENCH_BLOCK_SIZE");
    String mappedEnv = System.getenv("DOCSTORE_BENCH_MAPPED");
    mapped = mappedEnv == null || mappedEnv.isBlank() || Boolean.parseBoolean(mappedEnv.trim());
    blockSize = block != null && !block.isBlank() ? Integer.parseInt(block.trim()) : s.blockBytes();
    String nice = System.getenv("DOCSTORE_BENCH_BACKGROUND_NICE");
    index =
        IndexOptions.builder()
            .syncPolicy(SyncPolicy.NONE)
            .memTableBytes(s.writeBufferBytes())
            .bloomMemoryBytes(bloomBytes)
            .pageCacheBytes(pageCacheBytes)
            .mappedReads(mapped)
            .backgroundNice(
                nice == null || nice.isBlank()
                    ? IndexOptions.DEFAULT_BACKGROUND_NICE
                    : Integer.parseInt(nice.trim()))
            .build();
  }

  /** The queue's options so far (an engine may set more, e.g. the store's segment size). */
  QueueOptions.Builder queue() {
    return QueueOptions.builder()
        .syncPolicy(SyncPolicy.NONE)
        .blockCacheBytes(blockCacheBytes)
        .mappedReads(mapped)
        .blockSize(blockSize);
  }

  /** Budget parts for bloom, index pages, blocks: "1:6:1" unless {@code spec} says otherwise. */
  static long[] split(String spec) {
    if (spec == null || spec.isBlank()) {
      return new long[] {1, 6, 1};
    }
    String[] p = spec.split(":");
    if (p.length != 3) {
      throw new IllegalArgumentException(
          "DOCSTORE_BENCH_SPLIT must be bloom:pages:blocks, got " + spec);
    }
    long[] parts = {Long.parseLong(p[0]), Long.parseLong(p[1]), Long.parseLong(p[2])};
    if (parts[0] < 0 || parts[1] < 0 || parts[2] < 0 || parts[0] + parts[1] + parts[2] == 0) {
      throw new IllegalArgumentException(
          "DOCSTORE_BENCH_SPLIT parts must be >= 0 and not all 0, got " + spec);
    }
    return parts;
  }

  /** The settings line of the queue (opened with {@code qo}) and the index. */
  String describe(QueueOptions qo) {
    return "docstore queue (block "
        + qo.blockSize()
        + " B raw, records zstd-compressed one by one with a "
        + qo.dictionaryBytes()
        + " B dictionary once trained (LZ4 blocks before), decoded-block cache (LZ4 blocks only) "
        + blockCacheBytes
        + " B off heap, "
        + (mapped ? "mapped" : "positional")
        + " reads, sync none) + LsmIndex (memtable "
        + index.memTableBytes()
        + " B, resident bloom "
        + bloomBytes
        + " B at FP "
        + index.bloomFalsePositiveRate()
        + ", page cache "
        + pageCacheBytes
        + " B off heap, sync none, background threads at nice "
        + index.backgroundNice()
        + ")";
  }
}
