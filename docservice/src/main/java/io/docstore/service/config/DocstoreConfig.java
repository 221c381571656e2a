package io.docstore.service.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigValue;
import io.docstore.io.MemoryBudgets;
import io.docstore.io.MemoryLimit;
import io.docstore.io.SyncPolicy;
import io.docstore.queue.QueueOptions;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The validated configuration. Loading layers, strongest first: {@code docstore.*} JVM system
 * properties, {@code CONFIG_FORCE_docstore_*} environment variables, the {@code --config} file, the
 * built-in defaults ({@code docstore.conf} on the class path, the same file as {@code
 * config/docstore.conf}). Every value is checked here, once, so a bad one stops the service at
 * start with the key and the reason ({@link ConfigError}) instead of failing later.
 *
 * <p>{@code index.memtable}, {@code index.bloom-memory}, {@code index.page-cache} and {@code
 * cache.bytes} accept {@code auto} (their default): the size {@link MemoryBudgets} gives for this
 * box and JVM ({@link MemoryLimit}), within the direct memory the sizes set explicitly leave.
 *
 * <p>Immutable and thread-safe.
 */
public final class DocstoreConfig {

  private static final String ROOT = "docstore";

  private final Path dataDir;
  private final SyncPolicy sync;
  private final int queueBlockSize;
  private final long queueSegmentSize;
  private final int queueDictionaryBytes;
  private final int queueDictionarySamples;
  private final int maxBodyBytes;
  private final Duration defaultTtl;
  private final io.docstore.service.groups.FieldGroups groups;
  private final io.docstore.service.gc.GcOptions gc;
  private final long queueBlockCacheBytes;
  private final boolean queueMappedReads;
  private final long queueBytesPerSync;
  private final long indexMemtableBytes;
  private final double bloomFalsePositiveRate;
  private final long bloomMemoryBytes;
  private final long indexBackgroundWriteRate;
  private final int indexBackgroundNice;
  private final long indexPageCacheBytes;
  private final boolean indexMappedReads;
  private final Duration checkpointInterval;
  private final InetSocketAddress readAddress;
  private final InetSocketAddress adminAddress;
  private final String adminToken;
  private final int maxRequestLine;
  private final int maxHeaderSize;
  private final int maxIdsPerRequest;
  private final int maxResponseBytes;
  private final Duration idleTimeout;
  private final Duration requestTimeout;
  private final int maxConnections;
  private final int workerThreads;
  private final int workerQueue;
  private final int bulkMaxLines;
  private final int bulkMaxBytes;
  private final boolean rpcEnabled;
  private final InetSocketAddress rpcAddress;
  private final int rpcMaxFrameBytes;
  private final int rpcMaxBatch;
  private final long cacheBytes;
  private final List<InetSocketAddress> memcachedServers;
  private final Duration memcachedTimeout;
  private final Path inboxDir;
  private final io.docstore.client.ShardMap shardMap;
  private final Path shardMapFile;
  private final String clusterShard;
  private final Duration dropDelay;
  private final Duration inboxPollInterval;
  private final Duration shutdownTimeout;
  private final Duration drainPeriod;
  private final Duration replicationManifestInterval;
  private final io.docstore.service.kafka.KafkaOptions kafka;
  private final MemoryLimit memoryLimit;

  /** The memory budgets as given: a size, or {@link MemoryBudgets#AUTO}. */
  private final MemoryBudgets givenBudgets;

  private DocstoreConfig(Config c, MemoryLimit memoryLimit) {
    Reader r = new Reader(c);
    dataDir = Path.of(r.nonEmpty("data-dir"));
    sync = r.sync("sync");
    queueBlockSize = r.intBytes("queue.block-size", 512, 16 << 20);
    // Addresses hold a 31-bit offset within a segment.
    queueSegmentSize = r.bytes("queue.segment-size", 1 << 20, (1L << 31) - 1);
    maxBodyBytes = r.intBytes("queue.max-body", 1, 64 << 20);
    if (maxBodyBytes >= queueSegmentSize) {
      throw new ConfigError(ROOT + ".queue.max-body", "must be smaller than queue.segment-size");
    }
    queueDictionaryBytes = r.intBytes("queue.dictionary-bytes", 0, 1 << 20);
    if (queueDictionaryBytes != 0 && queueDictionaryBytes < QueueOptions.MIN_DICTIONARY_BYTES) {
      throw new ConfigError(ROOT + ".queue.dictionary-bytes", "must be 0 (off) or at least 1K");
    }
    queueDictionarySamples = r.intBetween("queue.dictionary-samples", 8, 1_000_000);
    queueBlockCacheBytes = r.bytes("queue.block-cache", 0, 16L << 30);
    queueMappedReads = r.bool("queue.mapped-reads");
    queueBytesPerSync = r.bytes("queue.bytes-per-sync", 0, Long.MAX_VALUE);
    long memtable = r.bytesOrAuto("index.memtable", 64 << 10, 1L << 36);
    bloomFalsePositiveRate = r.doubleBetween("index.bloom-false-positive-rate", 0, 0.5);
    long bloom = r.bytesOrAuto("index.bloom-memory", 0, Long.MAX_VALUE);
    indexBackgroundWriteRate = r.bytes("index.background-write-rate", 0, Long.MAX_VALUE);
    indexBackgroundNice = r.intBetween("index.background-nice", 0, 19);
    // The slot cache holds at most 16 stripes of 1 GiB.
    long pages = r.bytesOrAuto("index.page-cache", 0, 16L << 30);
    indexMappedReads = r.bool("index.mapped-reads");
    checkpointInterval = r.positiveDuration("index.checkpoint-interval");
    readAddress = r.address("http.read");
    adminAddress = r.address("http.admin");
    adminToken = r.string("http.admin.token");
    if (adminToken.isEmpty() && !adminAddress.getAddress().isLoopbackAddress()) {
      throw new ConfigError(
          ROOT + ".http.admin.token",
          "must be set when http.admin.host ("
              + adminAddress.getHostString()
              + ") is not a loopback address: the admin port accepts writes");
    }
    maxIdsPerRequest = r.intBetween("http.max-ids-per-request", 1, 100_000);
    maxResponseBytes = r.intBytes("http.max-response-bytes", 64 << 10, 1 << 30);
    maxRequestLine = r.intBytes("http.max-request-line", 256, 16 << 20);
    if (maxRequestLine < 64 + 20L * maxIdsPerRequest) {
      throw new ConfigError(
          ROOT + ".http.max-request-line",
          "must be at least "
              + (64 + 20L * maxIdsPerRequest)
              + " bytes to fit a multi-get of http.max-ids-per-request ("
              + maxIdsPerRequest
              + ") IDs");
    }
    maxHeaderSize = r.intBytes("http.max-header-size", 256, 16 << 20);
    idleTimeout = r.positiveDuration("http.idle-timeout");
    requestTimeout = r.positiveDuration("http.request-timeout");
    maxConnections = r.intBetween("http.max-connections", 1, 1_000_000);
    workerThreads = r.intBetween("http.worker-threads", 1, 4096);
    workerQueue = r.intBetween("http.worker-queue", 1, 10_000_000);
    bulkMaxLines = r.intBetween("bulk.max-lines", 1, 10_000_000);
    bulkMaxBytes = r.intBytes("bulk.max-body", 1, Integer.MAX_VALUE - 1);
    rpcEnabled = r.bool("rpc.enabled");
    rpcAddress = r.address("rpc");
    rpcMaxFrameBytes = r.intBytes("rpc.max-frame", 64, 1 << 30);
    rpcMaxBatch = r.intBetween("rpc.max-batch", 1, 100_000);
    long documents = r.bytesOrAuto("cache.bytes", 0, Long.MAX_VALUE);
    if (documents > 0 && documents < 64 << 10) {
      throw new ConfigError(
          ROOT + ".cache.bytes",
          "must be 0 (no in-process cache), at least 64K or auto, got " + documents);
    }
    this.memoryLimit = memoryLimit;
    givenBudgets = new MemoryBudgets(pages, bloom, memtable, documents);
    MemoryBudgets budgets = MemoryBudgets.of(memoryLimit, givenBudgets, queueBlockCacheBytes);
    indexMemtableBytes = budgets.memTableBytes();
    bloomMemoryBytes = budgets.bloomMemoryBytes();
    indexPageCacheBytes = budgets.pageCacheBytes();
    cacheBytes = budgets.documentCacheBytes();
    memcachedServers = r.servers("cache.memcached.servers");
    memcachedTimeout = r.positiveDuration("cache.memcached.timeout");
    String inbox = r.string("inbox.dir");
    inboxDir = inbox.isBlank() ? null : Path.of(inbox);
    inboxPollInterval = r.positiveDuration("inbox.poll-interval");
    shutdownTimeout = r.positiveDuration("shutdown-timeout");
    gc =
        new io.docstore.service.gc.GcOptions(
            r.bool("gc.enabled"),
            r.doubleBetween("gc.target", 0.999999, 1000),
            r.bytes("gc.rate", 0, Long.MAX_VALUE),
            r.positiveDuration("gc.interval"),
            r.bytes("gc.reserve", 0, Long.MAX_VALUE),
            r.doubleBetween("gc.min-garbage", 0, 1),
            1024);
    groups = groups(c);
    defaultTtl = r.get("expiry.default-ttl", c::getDuration);
    if (defaultTtl.isNegative()) {
      throw new ConfigError(ROOT + ".expiry.default-ttl", "must be 0 (never expire) or positive");
    }
    drainPeriod = r.get("drain-period", c::getDuration);
    if (drainPeriod.isNegative()) {
      throw new ConfigError(ROOT + ".drain-period", "must be 0 (none) or positive");
    }
    replicationManifestInterval = r.get("replication.manifest-interval", c::getDuration);
    if (replicationManifestInterval.isNegative()) {
      throw new ConfigError(ROOT + ".replication.manifest-interval", "must be 0 (off) or positive");
    }
    String map = r.string("cluster.shard-map");
    shardMapFile = map.isBlank() ? null : Path.of(map);
    shardMap = map.isBlank() ? null : shardMap(shardMapFile);
    clusterShard = r.string("cluster.shard").trim();
    if (!clusterShard.isEmpty()) {
      if (shardMap == null) {
        throw new ConfigError(ROOT + ".cluster.shard", "needs cluster.shard-map");
      }
      if (shardMap.shard(clusterShard) == null) {
        throw new ConfigError(
            ROOT + ".cluster.shard", "no shard '" + clusterShard + "' in " + shardMapFile);
      }
    }
    dropDelay = r.get("cluster.drop-delay", c::getDuration);
    if (dropDelay.isNegative()) {
      throw new ConfigError(ROOT + ".cluster.drop-delay", "must be 0 or positive");
    }
    kafka = kafka(r, clusterShard.isEmpty() ? null : shardMap.shard(clusterShard));
    if (kafka != null && inboxDir != null) {
      throw new ConfigError(
          ROOT + ".inbox.dir",
          "must be empty in Kafka mode (updates.kafka is set): the topic is the only writer");
    }
  }

  /**
   * {@code updates.kafka}: null (the HTTP updater) while {@code bootstrap-servers} and {@code
   * topic} are both empty, else both are required with at least one partition.
   */
  private static io.docstore.service.kafka.KafkaOptions kafka(
      Reader r, io.docstore.client.ShardMap.Shard shard) {
    String prefix = "updates.kafka.";
    String servers = r.string(prefix + "bootstrap-servers").trim();
    String topic = r.string(prefix + "topic").trim();
    if (servers.isEmpty() && topic.isEmpty()) {
      return null;
    }
    if (servers.isEmpty() || topic.isEmpty()) {
      throw new ConfigError(
          ROOT + "." + prefix + (servers.isEmpty() ? "bootstrap-servers" : "topic"),
          "must be set in Kafka mode (both bootstrap-servers and topic, or neither)");
    }
    List<Integer> partitions = r.get(prefix + "partitions", r.c::getIntList);
    if (shard != null) {
      if (!partitions.isEmpty()) {
        throw new ConfigError(
            ROOT + "." + prefix + "partitions",
            "must be empty when cluster.shard is set: shard "
                + shard.name()
                + " consumes what the shard map gives it");
      }
      partitions = shard.consumed();
    }
    if (partitions.isEmpty() && shard == null) {
      throw new ConfigError(
          ROOT + "." + prefix + "partitions", "must list the topic's partitions this shard serves");
    }
    java.util.Set<Integer> seen = new java.util.HashSet<>();
    for (int p : partitions) {
      if (p < 0 || !seen.add(p)) {
        throw new ConfigError(
            ROOT + "." + prefix + "partitions",
            (p < 0 ? "a partition is a non-negative number, got " : "partition listed twice: ")
                + p);
      }
    }
    return new io.docstore.service.kafka.KafkaOptions(
        servers,
        topic,
        partitions,
        r.intBetween(prefix + "max-lag", 0, Integer.MAX_VALUE),
        r.intBetween(prefix + "poll-records", 1, 100_000),
        kafkaClient(r.c.getObject(prefix + "client")),
        r.intBetween(prefix + "lz4-catch-up-lag", 0, Integer.MAX_VALUE));
  }

  /**
   * {@code updates.kafka.client { "name" = value }}: Kafka consumer settings as strings; a value
   * must be a string, a number or a boolean, and a setting docstore owns is refused.
   */
  private static Map<String, String> kafkaClient(com.typesafe.config.ConfigObject o) {
    Map<String, String> client = new java.util.TreeMap<>();
    for (Map.Entry<String, ConfigValue> e : o.entrySet()) {
      String key =
          ROOT + ".updates.kafka.client." + com.typesafe.config.ConfigUtil.quoteString(e.getKey());
      if (io.docstore.service.kafka.KafkaOptions.OWNED.contains(e.getKey())) {
        throw new ConfigError(
            key,
            "is docstore's to set"
                + (e.getKey().equals("bootstrap.servers")
                    ? " (updates.kafka.bootstrap-servers)"
                    : e.getKey().equals("max.poll.records")
                        ? " (updates.kafka.poll-records)"
                        : ": positions come from the queue, never from Kafka (docs/kafka.md)"));
      }
      switch (e.getValue().valueType()) {
        case STRING, NUMBER, BOOLEAN -> client.put(e.getKey(), e.getValue().unwrapped().toString());
        default ->
            throw new ConfigError(
                key, "must be a string, a number or a boolean (Kafka's own value syntax)");
      }
    }
    return client;
  }

  /** The built-in defaults with system property and environment overrides. */
  public static DocstoreConfig load() {
    return load(null, Map.of());
  }

  /** As {@link #load(Path, Map, MemoryLimit)} for this process's box and JVM. */
  public static DocstoreConfig load(Path file, Map<String, Object> overrides) {
    return load(file, overrides, MemoryLimit.detect());
  }

  /**
   * Loads and validates.
   *
   * @param file a config file (its keys override the defaults), or null
   * @param overrides keys (full paths, e.g. {@code docstore.data-dir}) that override everything,
   *     used for command-line options such as {@code --data}
   * @param memoryLimit the box and JVM the {@code auto} sizes are chosen for
   */
  static DocstoreConfig load(Path file, Map<String, Object> overrides, MemoryLimit memoryLimit) {
    Config defaults =
        ConfigFactory.parseResources(
            DocstoreConfig.class.getClassLoader(),
            "docstore.conf",
            ConfigParseOptions.defaults().setAllowMissing(false));
    Config fromFile = ConfigFactory.empty();
    if (file != null) {
      if (!Files.isRegularFile(file)) {
        throw new ConfigError("--config", file + " does not exist or is not a file");
      }
      try {
        fromFile =
            ConfigFactory.parseFile(
                file.toFile(), ConfigParseOptions.defaults().setAllowMissing(false));
      } catch (ConfigException e) {
        throw new ConfigError(file.toString(), e.getMessage());
      }
    }
    Config env = ConfigFactory.systemEnvironmentOverrides();
    Config props = systemPropertyOverrides(defaults);
    Config merged =
        ConfigFactory.parseMap(overrides, "command line")
            .withFallback(props)
            .withFallback(env)
            .withFallback(fromFile)
            .withFallback(defaults);
    try {
      merged = merged.resolve();
    } catch (ConfigException e) {
      throw new ConfigError(ROOT, e.getMessage());
    }
    rejectUnknownKeys(fromFile.withFallback(env), defaults);
    return new DocstoreConfig(merged.getConfig(ROOT), memoryLimit);
  }

  /**
   * JVM system properties naming a known key; others (e.g. {@code docstore.test.seed}) are not
   * config.
   */
  private static Config systemPropertyOverrides(Config defaults) {
    Properties known = new Properties();
    for (String name : System.getProperties().stringPropertyNames()) {
      if (name.startsWith(ROOT + ".") && defaults.hasPathOrNull(name)) {
        known.setProperty(name, System.getProperty(name));
      }
    }
    return ConfigFactory.parseProperties(
        known, ConfigParseOptions.defaults().setOriginDescription("system properties"));
  }

  /** {@code groups { name = [field, ...] }}: the field groups, in the order written. */
  private static io.docstore.service.groups.FieldGroups groups(Config c) {
    Map<String, java.util.List<String>> groups = new java.util.LinkedHashMap<>();
    for (String name : c.getObject("groups").keySet()) {
      try {
        groups.put(name, c.getStringList(com.typesafe.config.ConfigUtil.joinPath("groups", name)));
      } catch (ConfigException e) {
        throw new ConfigError(
            ROOT + ".groups." + name, "must be a list of top-level field names: " + e.getMessage());
      }
    }
    try {
      return groups.isEmpty()
          ? io.docstore.service.groups.FieldGroups.NONE
          : new io.docstore.service.groups.FieldGroups(groups);
    } catch (IllegalArgumentException e) {
      throw new ConfigError(ROOT + ".groups", e.getMessage());
    }
  }

  private static void rejectUnknownKeys(Config given, Config defaults) {
    for (Map.Entry<String, ConfigValue> e : given.entrySet()) {
      String key = e.getKey();
      if (key.startsWith(ROOT + ".groups.") || key.startsWith(ROOT + ".updates.kafka.client.")) {
        continue; // the groups are the user's to name, the client's settings Kafka's
      }
      if (key.startsWith(ROOT + ".") && !defaults.hasPathOrNull(key)) {
        throw new ConfigError(
            key,
            "unknown key (from "
                + e.getValue().origin().description()
                + "); see config/docstore.conf");
      }
    }
  }

  public Path dataDir() {
    return dataDir;
  }

  public SyncPolicy sync() {
    return sync;
  }

  public int queueBlockSize() {
    return queueBlockSize;
  }

  public long queueSegmentSize() {
    return queueSegmentSize;
  }

  public int queueDictionaryBytes() {
    return queueDictionaryBytes;
  }

  public int queueDictionarySamples() {
    return queueDictionarySamples;
  }

  public int maxBodyBytes() {
    return maxBodyBytes;
  }

  public long queueBlockCacheBytes() {
    return queueBlockCacheBytes;
  }

  public boolean queueMappedReads() {
    return queueMappedReads;
  }

  public long queueBytesPerSync() {
    return queueBytesPerSync;
  }

  public long indexMemtableBytes() {
    return indexMemtableBytes;
  }

  public double bloomFalsePositiveRate() {
    return bloomFalsePositiveRate;
  }

  public long bloomMemoryBytes() {
    return bloomMemoryBytes;
  }

  public long indexBackgroundWriteRate() {
    return indexBackgroundWriteRate;
  }

  public int indexBackgroundNice() {
    return indexBackgroundNice;
  }

  public long indexPageCacheBytes() {
    return indexPageCacheBytes;
  }

  public boolean indexMappedReads() {
    return indexMappedReads;
  }

  /**
   * Bytes of direct memory the caches may take: index bloom pages, index page cache, queue block
   * cache, and the in-process document cache where it is used (on a replica always; on the primary
   * unless memcached servers are listed).
   */
  public long offHeapCacheBytes(boolean replica) {
    return bloomMemoryBytes
        + indexPageCacheBytes
        + queueBlockCacheBytes
        + documentCacheBytes(replica);
  }

  private long documentCacheBytes(boolean replica) {
    return replica || memcachedServers.isEmpty() ? cacheBytes : 0;
  }

  /**
   * Stops a start whose caches cannot fit this JVM: the caches must leave a quarter of the direct
   * memory limit to I/O buffers (Netty, block and WAL buffers). Called by {@code serve} and {@code
   * replica} before they open anything, so the error names the keys instead of an {@code
   * OutOfMemoryError} from deep inside the index.
   *
   * @param directMemoryLimit this JVM's limit ({@link MemoryLimit#maxDirectBytes()})
   * @param replica whether this is a replica (which always keeps its document cache in process)
   */
  public void requireCachesFit(long directMemoryLimit, boolean replica) {
    long allowed = MemoryLimit.cacheShare(directMemoryLimit);
    long need = offHeapCacheBytes(replica);
    if (need > allowed) {
      throw new ConfigError(
          ROOT + ".index.page-cache",
          "the off-heap caches (index.page-cache "
              + budget(indexPageCacheBytes, givenBudgets.pageCacheBytes())
              + " + index.bloom-memory "
              + budget(bloomMemoryBytes, givenBudgets.bloomMemoryBytes())
              + " + queue.block-cache "
              + mib(queueBlockCacheBytes)
              + " + cache.bytes "
              + budget(documentCacheBytes(replica), givenBudgets.documentCacheBytes())
              + ") need "
              + mib(need)
              + ", more than 3/4 of this JVM's direct memory limit of "
              + mib(directMemoryLimit)
              + " (-XX:MaxDirectMemorySize, default = -Xmx): lower them, or raise the limit"
              + " (DOCSTORE_JAVA_OPTS=-XX:MaxDirectMemorySize=... for scripts/docstore)");
    }
  }

  private static String mib(long bytes) {
    return (bytes >> 20) + " MiB";
  }

  /** A budget for a message: its size ("0" when off), and "(auto)" when the box chose it. */
  private static String budget(long bytes, long given) {
    return (bytes == 0 ? "0" : MemoryLimit.size(bytes))
        + (given == MemoryBudgets.AUTO ? " (auto)" : "");
  }

  /**
   * One line for the start-up log: the box's memory limit and where it came from, the JVM's limits,
   * and the four memory budgets, those the box chose marked {@code (auto)}.
   *
   * @param replica whether this is a replica (which always keeps its document cache in process)
   */
  public String memorySummary(boolean replica) {
    String documents =
        replica || memcachedServers.isEmpty()
            ? budget(cacheBytes, givenBudgets.documentCacheBytes())
            : "not used (memcached)";
    return "memory: "
        + memoryLimit.describe()
        + ", JVM heap "
        + MemoryLimit.size(memoryLimit.maxHeapBytes())
        + ", direct memory "
        + MemoryLimit.size(memoryLimit.maxDirectBytes())
        + "; index.page-cache "
        + budget(indexPageCacheBytes, givenBudgets.pageCacheBytes())
        + ", index.bloom-memory "
        + budget(bloomMemoryBytes, givenBudgets.bloomMemoryBytes())
        + ", index.memtable "
        + budget(indexMemtableBytes, givenBudgets.memTableBytes())
        + ", cache.bytes "
        + documents;
  }

  public Duration checkpointInterval() {
    return checkpointInterval;
  }

  public InetSocketAddress readAddress() {
    return readAddress;
  }

  public InetSocketAddress adminAddress() {
    return adminAddress;
  }

  /** Empty when no token is required. */
  public String adminToken() {
    return adminToken;
  }

  public int maxRequestLine() {
    return maxRequestLine;
  }

  public int maxHeaderSize() {
    return maxHeaderSize;
  }

  public int maxIdsPerRequest() {
    return maxIdsPerRequest;
  }

  /** The largest multi-get answer (http.max-response-bytes); a larger one is refused with 400. */
  public int maxResponseBytes() {
    return maxResponseBytes;
  }

  public Duration idleTimeout() {
    return idleTimeout;
  }

  public Duration requestTimeout() {
    return requestTimeout;
  }

  public int maxConnections() {
    return maxConnections;
  }

  public int workerThreads() {
    return workerThreads;
  }

  public int workerQueue() {
    return workerQueue;
  }

  public int bulkMaxLines() {
    return bulkMaxLines;
  }

  public int bulkMaxBytes() {
    return bulkMaxBytes;
  }

  public boolean rpcEnabled() {
    return rpcEnabled;
  }

  public InetSocketAddress rpcAddress() {
    return rpcAddress;
  }

  public int rpcMaxFrameBytes() {
    return rpcMaxFrameBytes;
  }

  public int rpcMaxBatch() {
    return rpcMaxBatch;
  }

  public long cacheBytes() {
    return cacheBytes;
  }

  /** Empty: use the in-process cache. */
  public List<InetSocketAddress> memcachedServers() {
    return memcachedServers;
  }

  public Duration memcachedTimeout() {
    return memcachedTimeout;
  }

  /** Null when the inbox is off. */
  /**
   * The shard map this node serves on {@code GET /cluster}, or null (docs/formats/shard-map.md).
   */
  public io.docstore.client.ShardMap shardMap() {
    return shardMap;
  }

  /** The shard-map file ({@code cluster.shard-map}), or null. */
  public Path shardMapFile() {
    return shardMapFile;
  }

  /** This node's shard in the map ({@code cluster.shard}), or null when routing is not checked. */
  public String clusterShard() {
    return clusterShard.isEmpty() ? null : clusterShard;
  }

  /** How long a primary waits before deleting a partition its shard lost in the map. */
  public Duration dropDelay() {
    return dropDelay;
  }

  private static io.docstore.client.ShardMap shardMap(Path file) {
    try {
      return io.docstore.client.ShardMap.read(file);
    } catch (java.io.IOException | IllegalArgumentException e) {
      throw new ConfigError(ROOT + ".cluster.shard-map", "cannot read it: " + e.getMessage());
    }
  }

  public Path inboxDir() {
    return inboxDir;
  }

  public Duration inboxPollInterval() {
    return inboxPollInterval;
  }

  public Duration shutdownTimeout() {
    return shutdownTimeout;
  }

  /**
   * How long {@code /readyz} answers 503 "draining" on SIGTERM before any port closes ({@code
   * drain-period}; 0: none).
   */
  public Duration drainPeriod() {
    return drainPeriod;
  }

  /** The space reclamation's settings ({@code docstore.gc.*}). */
  public io.docstore.service.gc.GcOptions gc() {
    return gc;
  }

  /** The field groups ({@code docstore.groups}), {@code FieldGroups.NONE} when none. */
  public io.docstore.service.groups.FieldGroups groups() {
    return groups;
  }

  /** Time to live of a put that names no expiry of its own; zero: such puts never expire. */
  public Duration defaultTtl() {
    return defaultTtl;
  }

  /** How often the replication manifest is updated; zero: not published. */
  public Duration replicationManifestInterval() {
    return replicationManifestInterval;
  }

  /**
   * The Kafka topic this shard's updates come from ({@code updates.kafka}), or null: updates come
   * over the admin port and the inbox.
   */
  public io.docstore.service.kafka.KafkaOptions kafka() {
    return kafka;
  }

  /** Typed, range-checked getters that name the full key in every error. */
  private static final class Reader {
    private final Config c;

    Reader(Config c) {
      this.c = c;
    }

    private <T> T get(String key, java.util.function.Function<String, T> getter) {
      try {
        return getter.apply(key);
      } catch (ConfigException.Missing e) {
        throw new ConfigError(ROOT + "." + key, "missing");
      } catch (ConfigException e) {
        throw new ConfigError(ROOT + "." + key, e.getMessage());
      }
    }

    String string(String key) {
      return get(key, c::getString);
    }

    String nonEmpty(String key) {
      String s = string(key);
      if (s.isBlank()) {
        throw new ConfigError(ROOT + "." + key, "must not be empty");
      }
      return s;
    }

    boolean bool(String key) {
      return get(key, c::getBoolean);
    }

    /** A size, or {@link MemoryBudgets#AUTO} for the word {@code auto}. */
    long bytesOrAuto(String key, long min, long max) {
      if (c.hasPath(key)
          && c.getValue(key).valueType() == com.typesafe.config.ConfigValueType.STRING
          && "auto".equals(c.getString(key).trim())) {
        return MemoryBudgets.AUTO;
      }
      return bytes(key, min, max);
    }

    long bytes(String key, long min, long max) {
      long v = get(key, k -> c.getMemorySize(k).toBytes());
      if (v < min || v > max) {
        throw new ConfigError(
            ROOT + "." + key, "must be between " + min + " and " + max + " bytes, got " + v);
      }
      return v;
    }

    int intBytes(String key, int min, int max) {
      return (int) bytes(key, min, max);
    }

    int intBetween(String key, int min, int max) {
      int v = get(key, c::getInt);
      if (v < min || v > max) {
        throw new ConfigError(
            ROOT + "." + key, "must be between " + min + " and " + max + ", got " + v);
      }
      return v;
    }

    double doubleBetween(String key, double lowExclusive, double highExclusive) {
      double v = get(key, c::getDouble);
      if (!(v > lowExclusive && v < highExclusive)) {
        throw new ConfigError(
            ROOT + "." + key,
            "must be strictly between " + lowExclusive + " and " + highExclusive + ", got " + v);
      }
      return v;
    }

    Duration positiveDuration(String key) {
      Duration d = get(key, c::getDuration);
      if (d.isNegative() || d.isZero()) {
        throw new ConfigError(ROOT + "." + key, "must be positive, got " + d);
      }
      return d;
    }

    SyncPolicy sync(String key) {
      try {
        return SyncPolicy.parse(string(key));
      } catch (IllegalArgumentException e) {
        throw new ConfigError(ROOT + "." + key, e.getMessage());
      }
    }

    InetSocketAddress address(String prefix) {
      String host = nonEmpty(prefix + ".host");
      int port = intBetween(prefix + ".port", 0, 65535);
      try {
        return new InetSocketAddress(InetAddress.getByName(host), port);
      } catch (UnknownHostException e) {
        throw new ConfigError(ROOT + "." + prefix + ".host", "unknown host '" + host + "'");
      }
    }

    List<InetSocketAddress> servers(String key) {
      List<String> list = get(key, c::getStringList);
      List<InetSocketAddress> out = new ArrayList<>();
      for (String s : list) {
        int colon = s.lastIndexOf(':');
        if (colon <= 0 || colon == s.length() - 1) {
          throw new ConfigError(ROOT + "." + key, "'" + s + "' is not host:port");
        }
        int port;
        try {
          port = Integer.parseInt(s.substring(colon + 1));
        } catch (NumberFormatException e) {
          throw new ConfigError(ROOT + "." + key, "'" + s + "' has a non-numeric port");
        }
        if (port < 1 || port > 65535) {
          throw new ConfigError(ROOT + "." + key, "'" + s + "' has a port out of range");
        }
        out.add(new InetSocketAddress(s.substring(0, colon), port));
      }
      return List.copyOf(out);
    }
  }
}
