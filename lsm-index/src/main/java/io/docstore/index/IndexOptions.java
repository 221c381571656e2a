package io.docstore.index;

import io.docstore.index.bloom.BloomPolicy;
import io.docstore.io.FileSystem;
import io.docstore.io.MemoryBudgets;
import io.docstore.io.MemoryLimit;
import io.docstore.io.SyncPolicy;
import java.util.Objects;

/**
 * Settings of an {@link LsmIndex}. Immutable; build with {@link #builder()}.
 *
 * <p>The three memory budgets (memory table, bloom memory, page cache) default to this process's
 * share of its box ({@link MemoryBudgets}): the memory cgroup's limit, or the RAM, and the JVM's
 * heap and direct limits decide them, so that an index opened with the defaults in a small
 * container leaves the OS page cache room for its files; on a box of 2 GiB or more, with direct
 * memory to spare, they are 64 MiB, 64 MiB and 256 MiB.
 */
public final class IndexOptions {

  /** The nice value of background threads unless set: well below lookups, above idle. */
  public static final int DEFAULT_BACKGROUND_NICE = 10;

  private final FileSystem fileSystem;
  private final SyncPolicy syncPolicy;
  private final long memTableBytes;
  private final double bloomFalsePositiveRate;
  private final long bloomMemoryBytes;
  private final BloomPolicy bloomPolicy;
  private final long bloomRebalanceMillis;
  private final int maxFrozenTables;
  private final long backgroundWriteRate;
  private final int backgroundNice;
  private final long pageCacheBytes;
  private final boolean mappedReads;

  private IndexOptions(Builder b, MemoryBudgets budgets) {
    this.fileSystem = b.fileSystem;
    this.syncPolicy = b.syncPolicy;
    this.memTableBytes = budgets.memTableBytes();
    this.bloomFalsePositiveRate = b.bloomFalsePositiveRate;
    this.bloomMemoryBytes = budgets.bloomMemoryBytes();
    this.bloomPolicy = b.bloomPolicy;
    this.bloomRebalanceMillis = b.bloomRebalanceMillis;
    this.maxFrozenTables = b.maxFrozenTables;
    this.backgroundWriteRate = b.backgroundWriteRate;
    this.backgroundNice = b.backgroundNice;
    this.pageCacheBytes = budgets.pageCacheBytes();
    this.mappedReads = b.mappedReads;
  }

  public static Builder builder() {
    return new Builder();
  }

  public static IndexOptions defaults() {
    return builder().build();
  }

  public FileSystem fileSystem() {
    return fileSystem;
  }

  public SyncPolicy syncPolicy() {
    return syncPolicy;
  }

  /** Bytes of the memory table's slot arrays (16 per slot; full at 60% load). */
  public long memTableBytes() {
    return memTableBytes;
  }

  public double bloomFalsePositiveRate() {
    return bloomFalsePositiveRate;
  }

  /** The one off-heap budget shared by every bloom filter page of the index. */
  public long bloomMemoryBytes() {
    return bloomMemoryBytes;
  }

  public BloomPolicy bloomPolicy() {
    return bloomPolicy;
  }

  /** How often the bloom pager re-ranks pages (its usefulness counters halve every round). */
  public long bloomRebalanceMillis() {
    return bloomRebalanceMillis;
  }

  /** Frozen memory tables allowed to wait for their flush before a writer blocks (backpressure). */
  public int maxFrozenTables() {
    return maxFrozenTables;
  }

  /**
   * Bytes per second that flushes and compactions may write while nobody waits for them (0: no
   * limit), so that background merges leave CPU and disk to lookups. Writers blocked on a full set
   * of frozen tables, an explicit flush and close lift the limit until the flush is done.
   */
  public long backgroundWriteRate() {
    return backgroundWriteRate;
  }

  /**
   * The nice value (0 normal .. 19 lowest) of the threads that flush, compact and rebalance bloom
   * pages, so that their CPU work yields to lookups on a busy machine (on Linux; elsewhere
   * ignored).
   */
  public int backgroundNice() {
    return backgroundNice;
  }

  /**
   * Bytes of the off-heap cache of verified 4 KiB table pages (0: off, every page probe reads the
   * page, from the mapping or positionally, and checks its checksum). A hit costs no checksum and
   * no allocation.
   */
  public long pageCacheBytes() {
    return pageCacheBytes;
  }

  /**
   * Whether lookups read table pages from a mapping of the table files ({@link
   * Builder#mappedReads}).
   */
  public boolean mappedReads() {
    return mappedReads;
  }

  /** Builder with the defaults documented per method. */
  public static final class Builder {
    private FileSystem fileSystem = FileSystem.real();
    private SyncPolicy syncPolicy = SyncPolicy.ALWAYS;
    private long memTableBytes = MemoryBudgets.AUTO;
    private double bloomFalsePositiveRate = 0.01;
    private long bloomMemoryBytes = MemoryBudgets.AUTO;
    private BloomPolicy bloomPolicy = BloomPolicy.USEFULNESS;
    private long bloomRebalanceMillis = 500;
    private int maxFrozenTables = 2;
    private long backgroundWriteRate = 64L << 20;
    private int backgroundNice = DEFAULT_BACKGROUND_NICE;
    private long pageCacheBytes = MemoryBudgets.AUTO;
    private boolean mappedReads = true;

    private Builder() {}

    /** Default: the real file system. */
    public Builder fileSystem(FileSystem fs) {
      this.fileSystem = Objects.requireNonNull(fs);
      return this;
    }

    /** Default: {@code always} (group-committed fsync before a put returns). */
    public Builder syncPolicy(SyncPolicy policy) {
      this.syncPolicy = Objects.requireNonNull(policy);
      return this;
    }

    /**
     * Default: {@link MemoryBudgets}: the least of a 32nd of the box's memory, an eighth of the
     * heap and 64 MiB (about 2.5 million entries per flush); 16 MiB in a 512 MiB container. Minimum
     * 1 KiB.
     */
    public Builder memTableBytes(long bytes) {
      if (bytes < 1024) {
        throw new IllegalArgumentException("memTableBytes must be at least 1024, got " + bytes);
      }
      this.memTableBytes = bytes;
      return this;
    }

    /** Default: 0.01. Must be in (0, 0.5). */
    public Builder bloomFalsePositiveRate(double rate) {
      if (!(rate > 0 && rate < 0.5)) {
        throw new IllegalArgumentException(
            "bloom false-positive rate must be in (0, 0.5), got " + rate);
      }
      this.bloomFalsePositiveRate = rate;
      return this;
    }

    /**
     * Default: {@link MemoryBudgets}: a 32nd of the box's memory, at most 64 MiB (16 MiB in a 512
     * MiB container), within the JVM's direct memory. Zero disables residency (every bloom answer
     * is "maybe").
     */
    public Builder bloomMemoryBytes(long bytes) {
      if (bytes < 0) {
        throw new IllegalArgumentException("bloom memory must be >= 0, got " + bytes);
      }
      this.bloomMemoryBytes = bytes;
      return this;
    }

    /**
     * Default: {@link BloomPolicy#USEFULNESS}; {@code RANDOM} is the baseline for tests and
     * benchmarks.
     */
    public Builder bloomPolicy(BloomPolicy policy) {
      this.bloomPolicy = Objects.requireNonNull(policy);
      return this;
    }

    /** Default: 500 ms. */
    public Builder bloomRebalanceMillis(long millis) {
      if (millis <= 0) {
        throw new IllegalArgumentException(
            "bloom rebalance interval must be positive, got " + millis);
      }
      this.bloomRebalanceMillis = millis;
      return this;
    }

    /** Default: 2. */
    public Builder maxFrozenTables(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("maxFrozenTables must be >= 1, got " + n);
      }
      this.maxFrozenTables = n;
      return this;
    }

    /**
     * Default: {@value IndexOptions#DEFAULT_BACKGROUND_NICE}; 0 keeps the normal priority
     * (docs/decisions.md, "Index: background threads at a lower CPU priority").
     */
    public Builder backgroundNice(int nice) {
      if (nice < 0 || nice > 19) {
        throw new IllegalArgumentException("background nice must be 0..19, got " + nice);
      }
      this.backgroundNice = nice;
      return this;
    }

    /**
     * Default: 64 MiB/s (4M index entries a second, above the 2M puts/s the index is built for); 0
     * = no limit.
     */
    public Builder backgroundWriteRate(long bytesPerSecond) {
      if (bytesPerSecond < 0) {
        throw new IllegalArgumentException(
            "background write rate must be >= 0, got " + bytesPerSecond);
      }
      this.backgroundWriteRate = bytesPerSecond;
      return this;
    }

    /**
     * Default: {@link MemoryBudgets}: an eighth of the box's memory, at most 256 MiB (64 MiB in a
     * 512 MiB container), within what the JVM's direct memory leaves after the bloom memory; taken
     * in 1 MiB chunks as it fills, and with {@link #mappedReads} filled only while reads through
     * the mapping wait for the disk. 0 or below one 4 KiB page means off. Pages are cached after
     * their second miss once the cache is full.
     */
    public Builder pageCacheBytes(long bytes) {
      if (bytes < 0) {
        throw new IllegalArgumentException("page cache must be >= 0 bytes, got " + bytes);
      }
      this.pageCacheBytes = bytes;
      return this;
    }

    /**
     * Default true (Linux only; elsewhere lookups use positional reads): lookups read table pages
     * from a read-only mapping of the table files, advised {@code MADV_RANDOM}, so a resident page
     * costs no system call and no copy, and a page fault reads the one 4 KiB page it needs.
     */
    public Builder mappedReads(boolean mappedReads) {
      this.mappedReads = mappedReads;
      return this;
    }

    /** Resolves the memory budgets left to their defaults ({@link MemoryBudgets}) and builds. */
    public IndexOptions build() {
      MemoryBudgets given =
          new MemoryBudgets(pageCacheBytes, bloomMemoryBytes, memTableBytes, MemoryBudgets.AUTO);
      boolean auto =
          memTableBytes == MemoryBudgets.AUTO
              || bloomMemoryBytes == MemoryBudgets.AUTO
              || pageCacheBytes == MemoryBudgets.AUTO;
      return new IndexOptions(
          this, auto ? MemoryBudgets.of(MemoryLimit.detect(), given, 0) : given);
    }
  }
}
