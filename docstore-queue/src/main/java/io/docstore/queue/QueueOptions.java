package io.docstore.queue;

import io.docstore.io.FileSystem;
import io.docstore.io.SyncPolicy;
import io.docstore.queue.block.ZstdRecords;
import io.docstore.queue.format.Address;
import io.docstore.queue.format.BlockFormat;
import io.docstore.queue.format.SegmentFormat;

/**
 * How a queue is opened. Immutable; built with {@link #builder()}.
 *
 * <p>Defaults: real file system, sync {@code always} (group commit), block size {@value
 * #DEFAULT_BLOCK_SIZE} bytes of raw payload (chosen by measurement, see docs/decisions.md), segment
 * size 1 GiB, bodies up to 1 MiB, no decoded-block cache, records compressed one by one with a zstd
 * dictionary of up to {@value #DEFAULT_DICTIONARY_BYTES} bytes trained from the first {@value
 * #DEFAULT_DICTIONARY_SAMPLES} bodies.
 */
public final class QueueOptions {

  public static final int DEFAULT_BLOCK_SIZE = 8 * 1024;
  public static final long DEFAULT_SEGMENT_SIZE = 1L << 30;
  public static final long DEFAULT_BYTES_PER_SYNC = 64L << 20;
  public static final int DEFAULT_MAX_BODY_BYTES = 1 << 20;
  public static final int MIN_BLOCK_SIZE = 256;
  public static final int MAX_BLOCK_SIZE = 16 << 20;

  /** Largest body a block can carry alone. */
  public static final int MAX_BODY_LIMIT = 64 << 20;

  public static final int DEFAULT_DICTIONARY_BYTES = 64 * 1024;
  public static final int DEFAULT_DICTIONARY_SAMPLES = 1000;
  public static final int MIN_DICTIONARY_BYTES = 1024;

  /** A dictionary is used only in segments at least this many times its size. */
  public static final int SEGMENT_PER_DICTIONARY = 2;

  private final FileSystem fileSystem;
  private final SyncPolicy syncPolicy;
  private final int blockSize;
  private final long segmentSize;
  private final int maxBodyBytes;
  private final long blockCacheBytes;
  private final boolean mappedReads;
  private final long bytesPerSync;
  private final int dictionaryBytes;
  private final int dictionarySamples;

  private QueueOptions(Builder b) {
    this.fileSystem = b.fileSystem;
    this.syncPolicy = b.syncPolicy;
    this.blockSize = b.blockSize;
    this.segmentSize = b.segmentSize;
    this.maxBodyBytes = b.maxBodyBytes;
    this.blockCacheBytes = b.blockCacheBytes;
    this.mappedReads = b.mappedReads;
    this.bytesPerSync = b.bytesPerSync;
    this.dictionaryBytes = b.dictionaryBytes;
    this.dictionarySamples = b.dictionarySamples;
  }

  public static Builder builder() {
    return new Builder();
  }

  public static QueueOptions defaults() {
    return builder().build();
  }

  public FileSystem fileSystem() {
    return fileSystem;
  }

  public SyncPolicy syncPolicy() {
    return syncPolicy;
  }

  public int blockSize() {
    return blockSize;
  }

  public long segmentSize() {
    return segmentSize;
  }

  public int maxBodyBytes() {
    return maxBodyBytes;
  }

  public long blockCacheBytes() {
    return blockCacheBytes;
  }

  /** Whether random reads go through a mapping of the segments ({@link Builder#mappedReads}). */
  public boolean mappedReads() {
    return mappedReads;
  }

  /** Largest span a block can take in a segment file under these options. */
  int maxBlockBytes() {
    return BlockFormat.HEADER_LENGTH
        + Math.max(blockSize, BlockFormat.storedRecordCost(maxBodyBytes));
  }

  /** Written bytes between two background fsyncs of the active segment; 0: none. */
  public long bytesPerSync() {
    return bytesPerSync;
  }

  /**
   * Largest zstd dictionary trained; 0 when records are not compressed one by one (see {@link
   * Builder#dictionaryBytes}).
   */
  public int dictionaryBytes() {
    return segmentSize >= (long) SEGMENT_PER_DICTIONARY * dictionaryBytes ? dictionaryBytes : 0;
  }

  /** Bodies the dictionary is trained from. */
  public int dictionarySamples() {
    return dictionarySamples;
  }

  @Override
  public String toString() {
    return "QueueOptions{sync="
        + syncPolicy
        + ", blockSize="
        + blockSize
        + ", segmentSize="
        + segmentSize
        + ", maxBodyBytes="
        + maxBodyBytes
        + ", blockCacheBytes="
        + blockCacheBytes
        + ", mappedReads="
        + mappedReads
        + ", bytesPerSync="
        + bytesPerSync
        + ", dictionaryBytes="
        + dictionaryBytes
        + ", dictionarySamples="
        + dictionarySamples
        + "}";
  }

  /** Not thread-safe. */
  public static final class Builder {
    private FileSystem fileSystem = FileSystem.real();
    private SyncPolicy syncPolicy = SyncPolicy.ALWAYS;
    private int blockSize = DEFAULT_BLOCK_SIZE;
    private long segmentSize = DEFAULT_SEGMENT_SIZE;
    private int maxBodyBytes = DEFAULT_MAX_BODY_BYTES;
    private long blockCacheBytes;
    private boolean mappedReads = true;
    private long bytesPerSync = DEFAULT_BYTES_PER_SYNC;
    private int dictionaryBytes = DEFAULT_DICTIONARY_BYTES;
    private int dictionarySamples = DEFAULT_DICTIONARY_SAMPLES;

    private Builder() {}

    /**
     * Largest zstd dictionary to train (default {@value QueueOptions#DEFAULT_DICTIONARY_BYTES}); 0
     * turns dictionary compression off (blocks are then LZ4-compressed whole as in segment version
     * 2, except runs of incompressible records, stored one by one as they are). The writer trains
     * it once, inline, from the first {@link #dictionarySamples} bodies (about 70 ms for 1,000 job
     * documents), and stores it as the first block of every segment that uses it; until then, and
     * in segments smaller than {@value QueueOptions#SEGMENT_PER_DICTIONARY} times its size, blocks
     * are LZ4-compressed whole.
     */
    public Builder dictionaryBytes(int dictionaryBytes) {
      this.dictionaryBytes = dictionaryBytes;
      return this;
    }

    /**
     * Bodies the dictionary is trained from (default {@value
     * QueueOptions#DEFAULT_DICTIONARY_SAMPLES}, at least 8).
     */
    public Builder dictionarySamples(int dictionarySamples) {
      this.dictionarySamples = dictionarySamples;
      return this;
    }

    public Builder fileSystem(FileSystem fileSystem) {
      this.fileSystem = java.util.Objects.requireNonNull(fileSystem, "fileSystem");
      return this;
    }

    public Builder syncPolicy(SyncPolicy syncPolicy) {
      this.syncPolicy = java.util.Objects.requireNonNull(syncPolicy, "syncPolicy");
      return this;
    }

    /**
     * Raw payload bytes at which an LZ4 block is closed; a single larger record gets a block of its
     * own. A block of records stored one by one (segment format 3) is closed at the end of its 4
     * KiB page or at this size, whichever comes first, and such blocks are written this many bytes
     * at a time.
     */
    public Builder blockSize(int blockSize) {
      this.blockSize = blockSize;
      return this;
    }

    /** Size past which the active segment is sealed and a new one started. */
    public Builder segmentSize(long segmentSize) {
      this.segmentSize = segmentSize;
      return this;
    }

    public Builder maxBodyBytes(int maxBodyBytes) {
      this.maxBodyBytes = maxBodyBytes;
      return this;
    }

    /**
     * Bytes of the off-heap decoded-block cache, in slots of one block each ({@code blockSize} + 16
     * bytes); 0 (the default), or less than one slot, turns it off.
     */
    public Builder blockCacheBytes(long blockCacheBytes) {
      this.blockCacheBytes = blockCacheBytes;
      return this;
    }

    /**
     * Whether random reads by address take blocks from a read-only mapping of the segments, advised
     * {@code MADV_RANDOM} (default true; Linux only, elsewhere reads stay positional): no system
     * call and no copy for a resident block. False: one positional read per block, which on a cold
     * page cache reads a whole block in one disk request where a mapping faults page by page.
     */
    public Builder mappedReads(boolean mappedReads) {
      this.mappedReads = mappedReads;
      return this;
    }

    /**
     * Written bytes after which the writer fsyncs the active segment on a thread of its own while
     * appends go on (RocksDB's {@code bytes_per_sync}); default {@value
     * QueueOptions#DEFAULT_BYTES_PER_SYNC}, 0 turns it off. Under any sync policy it keeps the data
     * a segment seal must force small, so a seal does not stall the writer (the kernel starts
     * writing back on its own only once a tenth of memory is dirty); it is not a durability
     * promise: the sync policy is.
     */
    public Builder bytesPerSync(long bytesPerSync) {
      this.bytesPerSync = bytesPerSync;
      return this;
    }

    /**
     * @throws IllegalArgumentException naming the first out-of-range option
     */
    public QueueOptions build() {
      if (blockSize < MIN_BLOCK_SIZE || blockSize > MAX_BLOCK_SIZE) {
        throw new IllegalArgumentException(
            "blockSize must be in "
                + MIN_BLOCK_SIZE
                + ".."
                + MAX_BLOCK_SIZE
                + ", got "
                + blockSize);
      }
      if (maxBodyBytes < 0 || maxBodyBytes > MAX_BODY_LIMIT) {
        throw new IllegalArgumentException(
            "maxBodyBytes must be in 0.." + MAX_BODY_LIMIT + ", got " + maxBodyBytes);
      }
      if (bytesPerSync < 0) {
        throw new IllegalArgumentException(
            "bytesPerSync must not be negative, got " + bytesPerSync);
      }
      if (dictionaryBytes != 0
          && (dictionaryBytes < MIN_DICTIONARY_BYTES
              || dictionaryBytes > ZstdRecords.MAX_DICTIONARY)) {
        throw new IllegalArgumentException(
            "dictionaryBytes must be 0 or in "
                + MIN_DICTIONARY_BYTES
                + ".."
                + ZstdRecords.MAX_DICTIONARY
                + ", got "
                + dictionaryBytes);
      }
      if (dictionarySamples < 8) {
        throw new IllegalArgumentException(
            "dictionarySamples must be at least 8, got " + dictionarySamples);
      }
      if (blockCacheBytes < 0) {
        throw new IllegalArgumentException(
            "blockCacheBytes must not be negative, got " + blockCacheBytes);
      }
      QueueOptions o = new QueueOptions(this);
      long maxSegment = Address.MAX_SEGMENT_BYTES - o.maxBlockBytes() - SegmentFormat.FOOTER_LENGTH;
      if (segmentSize < SegmentFormat.HEADER_LENGTH + 1 || segmentSize > maxSegment) {
        throw new IllegalArgumentException(
            "segmentSize must be in "
                + (SegmentFormat.HEADER_LENGTH + 1)
                + ".."
                + maxSegment
                + " (addresses hold block offsets below 2 GiB), got "
                + segmentSize);
      }
      return o;
    }
  }
}
