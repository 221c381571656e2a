package io.docstore.service;

import io.docstore.index.IndexOptions;
import io.docstore.io.FileSystem;
import io.docstore.queue.QueueOptions;
import io.docstore.service.cache.DocCache;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Objects;

/**
 * How to open a {@link DocStore}. The cache is required (the embedded default is an in-process
 * cache); everything else has a default. Build with {@link #builder(DocCache)}.
 */
public final class DocStoreOptions {

  final FileSystem fileSystem;
  final QueueOptions queueOptions;
  final IndexOptions indexOptions;
  final DocCache cache;
  final MeterRegistry registry;
  final Duration checkpointInterval;
  final int maxBodyBytes;
  final Duration defaultTtl;
  final io.docstore.service.gc.GcOptions gc;
  final io.docstore.service.groups.FieldGroups groups;
  final boolean fedByLog;

  private DocStoreOptions(Builder b) {
    this.fileSystem = b.fileSystem;
    this.queueOptions = b.queueOptions;
    this.indexOptions = b.indexOptions;
    this.cache = b.cache;
    this.registry = b.registry;
    this.checkpointInterval = b.checkpointInterval;
    this.maxBodyBytes = b.maxBodyBytes;
    this.defaultTtl = b.defaultTtl;
    this.gc = b.gc;
    this.groups = b.groups;
    this.fedByLog = b.fedByLog;
  }

  public static Builder builder(DocCache cache) {
    return new Builder(cache);
  }

  /** The seam for the store's own durable file operations. */
  public FileSystem fileSystem() {
    return fileSystem;
  }

  public QueueOptions queueOptions() {
    return queueOptions;
  }

  public IndexOptions indexOptions() {
    return indexOptions;
  }

  public MeterRegistry registry() {
    return registry;
  }

  public int maxBodyBytes() {
    return maxBodyBytes;
  }

  /** The field groups every write is projected onto (none by default). */
  public io.docstore.service.groups.FieldGroups groups() {
    return groups;
  }

  /** The time to live of a put that names no expiry of its own; zero: such puts never expire. */
  public Duration defaultTtl() {
    return defaultTtl;
  }

  /** The space reclamation's settings (off unless set: a store opened by a tool never collects). */
  public io.docstore.service.gc.GcOptions gc() {
    return gc;
  }

  /** Builder; not thread-safe. */
  public static final class Builder {
    private FileSystem fileSystem = FileSystem.real();
    private QueueOptions queueOptions;
    private IndexOptions indexOptions;
    private final DocCache cache;
    private MeterRegistry registry = new SimpleMeterRegistry();
    private Duration checkpointInterval = Duration.ofSeconds(5);
    private int maxBodyBytes = 1 << 20;
    private Duration defaultTtl = Duration.ZERO;
    private io.docstore.service.groups.FieldGroups groups =
        io.docstore.service.groups.FieldGroups.NONE;
    private io.docstore.service.gc.GcOptions gc =
        io.docstore.service.gc.GcOptions.defaults().withEnabled(false);
    private boolean fedByLog;

    private Builder(DocCache cache) {
      this.cache = Objects.requireNonNull(cache, "cache");
    }

    /**
     * The seam for every durable file operation of the store (the queue and index options carry
     * their own).
     */
    public Builder fileSystem(FileSystem fs) {
      this.fileSystem = fs;
      return this;
    }

    public Builder queueOptions(QueueOptions o) {
      this.queueOptions = o;
      return this;
    }

    /** Index options; the index needs no sync of its own (it is derived from the queue). */
    public Builder indexOptions(IndexOptions o) {
      this.indexOptions = o;
      return this;
    }

    public Builder registry(MeterRegistry r) {
      this.registry = r;
      return this;
    }

    /**
     * How often the index is synced and its checkpoint published (bounds re-indexing after a
     * crash).
     */
    public Builder checkpointInterval(Duration d) {
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException("checkpoint interval must be positive, got " + d);
      }
      this.checkpointInterval = d;
      return this;
    }

    public Builder maxBodyBytes(int n) {
      if (n <= 0) {
        throw new IllegalArgumentException("max body bytes must be positive, got " + n);
      }
      this.maxBodyBytes = n;
      return this;
    }

    /**
     * The time to live of a put that names no expiry of its own (zero, the default: such puts never
     * expire).
     */
    public Builder defaultTtl(Duration d) {
      if (d.isNegative()) {
        throw new IllegalArgumentException("default time to live must not be negative, got " + d);
      }
      this.defaultTtl = d;
      return this;
    }

    /** The space reclamation (default: {@link io.docstore.service.gc.GcOptions#defaults}, off). */
    public Builder gc(io.docstore.service.gc.GcOptions o) {
      this.gc = java.util.Objects.requireNonNull(o, "gc");
      return this;
    }

    /** The field groups every write is projected onto (default: none). */
    public Builder groups(io.docstore.service.groups.FieldGroups g) {
      this.groups = java.util.Objects.requireNonNull(g, "groups");
      return this;
    }

    /**
     * The store is a shard fed by an update log (Kafka mode): it says so to readers ({@link
     * DocStore#fedByLog}) before it has consumed anything (default false).
     */
    public Builder fedByLog(boolean v) {
      this.fedByLog = v;
      return this;
    }

    public DocStoreOptions build() {
      if (queueOptions == null) {
        queueOptions =
            QueueOptions.builder().fileSystem(fileSystem).maxBodyBytes(maxBodyBytes).build();
      }
      if (indexOptions == null) {
        indexOptions =
            IndexOptions.builder()
                .fileSystem(fileSystem)
                .syncPolicy(io.docstore.io.SyncPolicy.NONE)
                .build();
      }
      return new DocStoreOptions(this);
    }
  }
}
