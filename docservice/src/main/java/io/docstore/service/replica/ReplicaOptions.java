package io.docstore.service.replica;

import io.docstore.index.IndexOptions;
import io.docstore.io.SyncPolicy;
import io.docstore.queue.QueueOptions;
import io.docstore.queue.format.BlockFormat;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link ReplicaNode} runs: where it pulls from, where it keeps its copy and index, how often
 * it pulls and checkpoints, and its document cache. The source and directory are required;
 * everything else has a default. Immutable; build with {@link #builder(String, Path)}.
 */
public final class ReplicaOptions {

  /** The in-process document cache unless set. */
  public static final long DEFAULT_CACHE_BYTES = 64L << 20;

  final String source;
  final Path dir;
  final Duration pullInterval;
  final Duration rsyncTimeout;
  final Duration checkpointInterval;
  final Duration maxStaleness;
  final int expectedBlockBytes;
  final String rsyncBinary;
  final IndexOptions indexOptions;
  final long cacheBytes;
  final io.docstore.service.groups.FieldGroups groups;

  private ReplicaOptions(Builder b) {
    this.source = b.source;
    this.dir = b.dir;
    this.pullInterval = b.pullInterval;
    this.rsyncTimeout = b.rsyncTimeout;
    this.checkpointInterval = b.checkpointInterval;
    this.maxStaleness = b.maxStaleness;
    this.expectedBlockBytes = b.expectedBlockBytes;
    this.rsyncBinary = b.rsyncBinary;
    this.indexOptions = b.indexOptions;
    this.cacheBytes = b.cacheBytes;
    this.groups = b.groups;
  }

  /**
   * @param source rsync source: {@code rsync://host:port/module/}, {@code host:path/} or a local
   *     directory
   * @param dir the replica's directory ({@code queue/}, {@code index/}, {@code replica.point})
   */
  public static Builder builder(String source, Path dir) {
    return new Builder(source, dir);
  }

  /** Builder with the defaults documented per method; not thread-safe. */
  public static final class Builder {
    private final String source;
    private final Path dir;
    private Duration pullInterval = Duration.ofMillis(200);
    private Duration rsyncTimeout = Duration.ofSeconds(30);
    private Duration checkpointInterval = Duration.ofSeconds(1);
    private Duration maxStaleness = Duration.ofSeconds(10);
    private int expectedBlockBytes = BlockFormat.HEADER_LENGTH + QueueOptions.DEFAULT_BLOCK_SIZE;
    private String rsyncBinary = "rsync";
    private IndexOptions indexOptions;
    private long cacheBytes = DEFAULT_CACHE_BYTES;
    private io.docstore.service.groups.FieldGroups groups =
        io.docstore.service.groups.FieldGroups.NONE;

    private Builder(String source, Path dir) {
      this.source = Objects.requireNonNull(source, "source");
      this.dir = Objects.requireNonNull(dir, "dir");
    }

    /**
     * Default: 200 ms. The time from the start of one pull to the start of the next (when the pull
     * was quicker).
     */
    public Builder pullInterval(Duration d) {
      this.pullInterval = positive(d, "pull interval");
      return this;
    }

    /**
     * Default: 30 s. rsync's I/O and connect timeout, in whole seconds; a pull is killed after
     * twice this (+5 s).
     */
    public Builder rsyncTimeout(Duration d) {
      if (d.toSeconds() < 1) {
        throw new IllegalArgumentException(
            "rsync timeout must be at least 1 s (rsync counts whole seconds), got " + d);
      }
      this.rsyncTimeout = d;
      return this;
    }

    /**
     * Default: 1 s. How often the index is synced and the ingestion point persisted (bounds
     * re-ingestion after a crash).
     */
    public Builder checkpointInterval(Duration d) {
      this.checkpointInterval = positive(d, "checkpoint interval");
      return this;
    }

    /**
     * Default: 10 s. The replica is ready ({@code /readyz} 200) only while its lag (the time since
     * it is known to be current, docs/replication.md) is at most this.
     */
    public Builder maxStaleness(Duration d) {
      this.maxStaleness = positive(d, "max staleness");
      return this;
    }

    /**
     * Default: the primary's default block size plus its header. The follower's first read buffer
     * per block.
     */
    public Builder expectedBlockBytes(int bytes) {
      if (bytes <= 0) {
        throw new IllegalArgumentException("expected block bytes must be positive, got " + bytes);
      }
      this.expectedBlockBytes = bytes;
      return this;
    }

    /** Default: {@code rsync} (found on the path). */
    public Builder rsyncBinary(String binary) {
      this.rsyncBinary = Objects.requireNonNull(binary, "rsync binary");
      return this;
    }

    /**
     * Default: the index defaults without a sync of its own (checkpoints sync it; it is derived
     * from the copy).
     */
    public Builder indexOptions(IndexOptions o) {
      this.indexOptions = Objects.requireNonNull(o, "index options");
      return this;
    }

    /**
     * Default: {@link #DEFAULT_CACHE_BYTES}; 0 turns the cache off. Always in process, never
     * memcached: a lagging replica's ingest would write older versions into a shared cache.
     */
    /**
     * The field groups the primary projects (the replica serves them): its {@code docstore.groups}.
     */
    public Builder groups(io.docstore.service.groups.FieldGroups g) {
      this.groups = java.util.Objects.requireNonNull(g, "groups");
      return this;
    }

    public Builder cacheBytes(long bytes) {
      if (bytes < 0) {
        throw new IllegalArgumentException("cache bytes must be >= 0, got " + bytes);
      }
      this.cacheBytes = bytes;
      return this;
    }

    public ReplicaOptions build() {
      if (indexOptions == null) {
        indexOptions = IndexOptions.builder().syncPolicy(SyncPolicy.NONE).build();
      }
      return new ReplicaOptions(this);
    }

    private static Duration positive(Duration d, String what) {
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(what + " must be positive, got " + d);
      }
      return d;
    }
  }
}
