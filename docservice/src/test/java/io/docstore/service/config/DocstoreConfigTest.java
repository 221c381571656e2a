package io.docstore.service.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.io.MemoryBudgets;
import io.docstore.io.MemoryLimit;
import io.docstore.io.SyncPolicy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DocstoreConfigTest {

  @TempDir Path dir;

  private Path file(String content) throws IOException {
    Path f = dir.resolve("test.conf");
    Files.writeString(f, content);
    return f;
  }

  private static final long MIB = 1L << 20;

  /** A big box whose JVM has direct memory to spare: auto gives the caps. */
  private static final MemoryLimit BIG = new MemoryLimit(24L << 30, "RAM", 4L << 30, 4L << 30);

  /** A 512 MiB container, the JVM's default limits (a quarter of it each). */
  private static final MemoryLimit SMALL =
      new MemoryLimit(512 * MIB, "cgroup v2 limit", 128 * MIB, 128 * MIB);

  @Test
  void cachesThatDoNotFitTheJvmsDirectMemoryStopTheStartWithTheKeys() {
    DocstoreConfig c = DocstoreConfig.load(null, Map.of(), BIG);
    assertThatThrownBy(() -> c.requireCachesFit(512L << 20, false))
        .isInstanceOf(ConfigError.class)
        .hasMessageContaining("docstore.index.page-cache")
        .hasMessageContaining("index.bloom-memory 64 MiB (auto)")
        .hasMessageContaining("cache.bytes 256 MiB")
        .hasMessageContaining("need 576 MiB")
        .hasMessageContaining("MaxDirectMemorySize");
    c.requireCachesFit(1L << 30, false);
    DocstoreConfig small =
        DocstoreConfig.load(
            null, Map.of("docstore.index.page-cache", "32M", "docstore.cache.bytes", "64M"), BIG);
    small.requireCachesFit(512L << 20, false);
    // With memcached the document cache is not in process, except on a replica.
    DocstoreConfig memcached =
        DocstoreConfig.load(
            null,
            Map.of("docstore.cache.memcached.servers", java.util.List.of("127.0.0.1:11211")),
            BIG);
    memcached.requireCachesFit(512L << 20, false);
    assertThatThrownBy(() -> memcached.requireCachesFit(512L << 20, true))
        .hasMessageContaining("cache.bytes 256 MiB");
    assertThat(MemoryLimit.detect().maxDirectBytes()).isPositive();
  }

  @Test
  void autoSizesFollowTheBoxAsInTheBudgetTable() {
    for (MemoryLimit box :
        new MemoryLimit[] {SMALL, BIG, new MemoryLimit(1L << 30, "RAM", 256 * MIB, 256 * MIB)}) {
      DocstoreConfig c = DocstoreConfig.load(null, Map.of(), box);
      MemoryBudgets table = MemoryBudgets.of(box);
      assertThat(c.indexPageCacheBytes()).as(box.describe()).isEqualTo(table.pageCacheBytes());
      assertThat(c.bloomMemoryBytes()).as(box.describe()).isEqualTo(table.bloomMemoryBytes());
      assertThat(c.indexMemtableBytes()).as(box.describe()).isEqualTo(table.memTableBytes());
      assertThat(c.cacheBytes()).as(box.describe()).isEqualTo(table.documentCacheBytes());
      // auto always fits the JVM it was chosen for, primary or replica.
      c.requireCachesFit(box.maxDirectBytes(), false);
      c.requireCachesFit(box.maxDirectBytes(), true);
    }
    DocstoreConfig small = DocstoreConfig.load(null, Map.of(), SMALL);
    assertThat(
            new long[] {
              small.indexPageCacheBytes(),
              small.bloomMemoryBytes(),
              small.indexMemtableBytes(),
              small.cacheBytes()
            })
        .containsExactly(64 * MIB, 16 * MIB, 16 * MIB, 16 * MIB);
    DocstoreConfig big = DocstoreConfig.load(null, Map.of(), BIG);
    assertThat(
            new long[] {
              big.indexPageCacheBytes(),
              big.bloomMemoryBytes(),
              big.indexMemtableBytes(),
              big.cacheBytes()
            })
        .containsExactly(256 * MIB, 64 * MIB, 64 * MIB, 256 * MIB);
    assertThat(small.memorySummary(false))
        .isEqualTo(
            "memory: cgroup v2 limit 512 MiB, JVM heap 128 MiB, "
                + "direct memory 128 MiB; index.page-cache 64 MiB (auto), index.bloom-memory 16 MiB (auto), "
                + "index.memtable 16 MiB (auto), cache.bytes 16 MiB (auto)");
  }

  @Test
  void explicitSizesOverrideAutoAndLeaveItLessRoom() throws IOException {
    Path f =
        file(
            "docstore { index { page-cache = 32M, memtable = 1M }, cache.bytes = 0, queue.block-cache = 8M }");
    DocstoreConfig c = DocstoreConfig.load(f, Map.of(), SMALL);
    assertThat(c.indexPageCacheBytes()).isEqualTo(32 * MIB);
    assertThat(c.indexMemtableBytes()).isEqualTo(1 * MIB);
    assertThat(c.cacheBytes()).as("0 still means no in-process cache").isZero();
    assertThat(c.bloomMemoryBytes()).isEqualTo(16 * MIB);
    assertThat(c.memorySummary(false))
        .contains(
            "index.page-cache 32 MiB, ",
            "index.bloom-memory 16 MiB (auto)",
            "index.memtable 1 MiB, ",
            "cache.bytes 0");
    // Room for the autos: 96 MiB (3/4 of 128) less 32 set for pages and 8 for blocks: bloom, then
    // documents.
    c =
        DocstoreConfig.load(
            null,
            Map.of("docstore.index.page-cache", "32M", "docstore.queue.block-cache", "8M"),
            SMALL);
    assertThat(c.bloomMemoryBytes()).isEqualTo(16 * MIB);
    assertThat(c.cacheBytes()).isEqualTo(40 * MIB);
    c.requireCachesFit(SMALL.maxDirectBytes(), true);
    // Every size set: exactly as before, whatever the box.
    c =
        DocstoreConfig.load(
            null,
            Map.of(
                "docstore.index.page-cache",
                "256M",
                "docstore.index.bloom-memory",
                "64M",
                "docstore.index.memtable",
                "64M",
                "docstore.cache.bytes",
                "256M"),
            SMALL);
    assertThat(
            new long[] {
              c.indexPageCacheBytes(), c.bloomMemoryBytes(), c.indexMemtableBytes(), c.cacheBytes()
            })
        .containsExactly(256 * MIB, 64 * MIB, 64 * MIB, 256 * MIB);
    assertThat(
            DocstoreConfig.load(
                    null,
                    Map.of(
                        "docstore.cache.memcached.servers", java.util.List.of("127.0.0.1:11211")),
                    SMALL)
                .memorySummary(false))
        .endsWith("cache.bytes not used (memcached)");
  }

  @Test
  void defaultsAreSafe() {
    DocstoreConfig c = DocstoreConfig.load();
    assertThat(c.sync()).isEqualTo(SyncPolicy.ALWAYS);
    assertThat(c.readAddress().getAddress().isLoopbackAddress()).isTrue();
    assertThat(c.adminAddress().getAddress().isLoopbackAddress()).isTrue();
    assertThat(c.readAddress().getPort()).isEqualTo(8080);
    assertThat(c.adminAddress().getPort()).isEqualTo(8081);
    assertThat(c.maxIdsPerRequest()).isEqualTo(1000);
    assertThat(c.memcachedServers()).isEmpty();
    assertThat(c.inboxDir()).isNull();
    assertThat(c.dataDir()).isEqualTo(Path.of("data"));
    assertThat(c.indexPageCacheBytes()).isEqualTo(MemoryBudgets.forThisProcess().pageCacheBytes());
    assertThat(c.queueBlockCacheBytes()).isZero();
    assertThat(c.queueMappedReads()).isTrue();
    assertThat(c.indexMappedReads()).isTrue();
    assertThat(c.queueBytesPerSync()).isEqualTo(64L << 20);
  }

  @Test
  void primaryAndReplicaShareTheIndexOptions() {
    DocstoreConfig c =
        DocstoreConfig.load(
            null,
            Map.of(
                "docstore.index.page-cache",
                "8M",
                "docstore.index.bloom-memory",
                "1M",
                "docstore.index.mapped-reads",
                "false"));
    io.docstore.index.IndexOptions o = io.docstore.service.Service.indexOptions(c).build();
    assertThat(o.pageCacheBytes()).isEqualTo(8L << 20);
    assertThat(o.mappedReads()).isFalse();
    assertThat(o.bloomMemoryBytes()).isEqualTo(1L << 20);
    assertThat(o.syncPolicy()).isEqualTo(SyncPolicy.NONE);
    assertThatThrownBy(() -> DocstoreConfig.load(null, Map.of("docstore.index.page-cache", "17G")))
        .hasMessageContaining("docstore.index.page-cache");
  }

  @Test
  void fileThenOverridesWin() throws IOException {
    Path f =
        file(
            "docstore { sync = \"interval:20\", http.read.port = 9000, cache.memcached.servers = [\"127.0.0.1:11311\"] }");
    DocstoreConfig c = DocstoreConfig.load(f, Map.of("docstore.http.read.port", 9001));
    assertThat(c.sync()).isEqualTo(SyncPolicy.interval(20));
    assertThat(c.readAddress().getPort()).isEqualTo(9001);
    assertThat(c.memcachedServers()).hasSize(1);
    assertThat(c.memcachedServers().get(0).getPort()).isEqualTo(11311);
  }

  @Test
  void systemPropertiesOverrideTheFile() throws IOException {
    Path f = file("docstore.index.checkpoint-interval = 2s");
    System.setProperty("docstore.index.checkpoint-interval", "3s");
    try {
      assertThat(DocstoreConfig.load(f, Map.of()).checkpointInterval())
          .isEqualTo(Duration.ofSeconds(3));
    } finally {
      System.clearProperty("docstore.index.checkpoint-interval");
    }
  }

  @Test
  void unknownKeysAreRejectedByName() throws IOException {
    Path f = file("docstore.http.raed.port = 1");
    assertThatThrownBy(() -> DocstoreConfig.load(f, Map.of()))
        .isInstanceOf(ConfigError.class)
        .hasMessageContaining("docstore.http.raed.port")
        .hasMessageContaining("unknown key");
  }

  @Test
  void badValuesNameTheKeyAndReason() throws IOException {
    String[][] cases = {
      {"docstore.http.read.port = 70000", "docstore.http.read.port", "between 0 and 65535"},
      {"docstore.sync = sometimes", "docstore.sync", "unknown sync policy"},
      {"docstore.queue.block-size = lots", "docstore.queue.block-size", ""},
      {
        "docstore.index.bloom-false-positive-rate = 1.5",
        "docstore.index.bloom-false-positive-rate",
        "strictly between"
      },
      {"docstore.http.idle-timeout = 0s", "docstore.http.idle-timeout", "positive"},
      {
        "docstore.cache.memcached.servers = [\"nohostport\"]",
        "docstore.cache.memcached.servers",
        "host:port"
      },
      {"docstore.http.admin.host = \"0.0.0.0\"", "docstore.http.admin.token", "loopback"},
      {"docstore.http.max-request-line = 1K", "docstore.http.max-request-line", "multi-get"},
      {"docstore.data-dir = \"\"", "docstore.data-dir", "empty"},
      {"docstore.queue.bytes-per-sync = -1", "docstore.queue.bytes-per-sync", ""},
      {"docstore.index.page-cache = sometimes", "docstore.index.page-cache", ""},
      {"docstore.cache.bytes = 1K", "docstore.cache.bytes", "or auto"},
    };
    for (String[] c : cases) {
      Path f = file(c[0]);
      assertThatThrownBy(() -> DocstoreConfig.load(f, Map.of()))
          .as(c[0])
          .isInstanceOf(ConfigError.class)
          .hasMessageContaining(c[1])
          .hasMessageContaining(c[2]);
    }
  }

  @Test
  void kafkaModeIsOffByDefaultAndTakesTopicServersAndPartitions() throws IOException {
    assertThat(DocstoreConfig.load(null, Map.of()).kafka()).isNull();
    Path f =
        file(
            "docstore.updates.kafka { bootstrap-servers = \"127.0.0.1:9092\", topic = docs,"
                + " partitions = [2, 0] }");
    io.docstore.service.kafka.KafkaOptions k = DocstoreConfig.load(f, Map.of()).kafka();
    assertThat(k.bootstrapServers()).isEqualTo("127.0.0.1:9092");
    assertThat(k.topic()).isEqualTo("docs");
    assertThat(k.partitions()).containsExactly(2, 0);
    assertThat(k.maxLag()).isEqualTo(1000);
    assertThat(k.pollRecords()).isEqualTo(20_000);
    String[][] cases = {
      {"topic = docs, partitions = [0]", "docstore.updates.kafka.bootstrap-servers", "both"},
      {"bootstrap-servers = \"h:1\", partitions = [0]", "docstore.updates.kafka.topic", "both"},
      {"bootstrap-servers = \"h:1\", topic = t", "docstore.updates.kafka.partitions", "must list"},
      {
        "bootstrap-servers = \"h:1\", topic = t, partitions = [1, 1]",
        "docstore.updates.kafka.partitions",
        "twice: 1"
      },
      {
        "bootstrap-servers = \"h:1\", topic = t, partitions = [-1]",
        "docstore.updates.kafka.partitions",
        "non-negative"
      },
      {
        "bootstrap-servers = \"h:1\", topic = t, partitions = [0], max-lag = -1",
        "docstore.updates.kafka.max-lag",
        "between"
      },
    };
    for (String[] c : cases) {
      Path bad = file("docstore.updates.kafka { " + c[0] + " }");
      assertThatThrownBy(() -> DocstoreConfig.load(bad, Map.of()))
          .as(c[0])
          .isInstanceOf(ConfigError.class)
          .hasMessageContaining(c[1])
          .hasMessageContaining(c[2]);
    }
    Path withInbox =
        file(
            "docstore.inbox.dir = in\ndocstore.updates.kafka { bootstrap-servers = \"h:1\","
                + " topic = t, partitions = [0] }");
    assertThatThrownBy(() -> DocstoreConfig.load(withInbox, Map.of()))
        .isInstanceOf(ConfigError.class)
        .hasMessageContaining("docstore.inbox.dir")
        .hasMessageContaining("Kafka mode");
  }

  @Test
  void kafkaClientSettingsPassAsWrittenAndTheDefaultFilesExampleParses() throws IOException {
    assertThat(DocstoreConfig.load(null, Map.of()).kafka()).isNull();
    // The example in the comments of the built-in file, the secret taken from PATH instead
    List<String> lines;
    try (var in = DocstoreConfig.class.getClassLoader().getResourceAsStream("docstore.conf")) {
      lines = List.of(new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n"));
    }
    int from = lines.indexOf("      #   client {");
    int to = lines.subList(from, lines.size()).indexOf("      #   }") + from;
    assertThat(from).as("the example in docstore.conf").isPositive();
    StringBuilder example = new StringBuilder();
    for (String l : lines.subList(from, to + 1)) {
      example.append(l.substring("      #   ".length())).append('\n');
    }
    Path f =
        file(
            "docstore.updates.kafka { bootstrap-servers = \"h:1\", topic = t, partitions = [0]\n"
                + example.toString().replace("${KAFKA_PASSWORD}", "${PATH}")
                + "}");
    Map<String, String> client = DocstoreConfig.load(f, Map.of()).kafka().client();
    assertThat(client)
        .containsEntry("security.protocol", "SASL_SSL")
        .containsEntry("sasl.mechanism", "SCRAM-SHA-512")
        .containsEntry("ssl.truststore.location", "/etc/docstore/kafka-truststore.p12")
        .containsEntry(
            "sasl.jaas.config",
            "org.apache.kafka.common.security.scram.ScramLoginModule required"
                + " username=\"docstore\" password=\""
                + System.getenv("PATH")
                + "\";");
    Path numbers =
        file(
            "docstore.updates.kafka { bootstrap-servers = \"h:1\", topic = t, partitions = [0],"
                + " client { \"fetch.max.wait.ms\" = 100, \"check.crcs\" = true } }");
    assertThat(DocstoreConfig.load(numbers, Map.of()).kafka().client())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("fetch.max.wait.ms", "100", "check.crcs", "true"));
    String[][] refused = {
      {"\"enable.auto.commit\" = true", "\"enable.auto.commit\": is docstore's to set"},
      {"\"bootstrap.servers\" = \"x:1\"", "updates.kafka.bootstrap-servers"},
      {"\"max.poll.records\" = 5", "updates.kafka.poll-records"},
      {"\"security.protocol\" = [SSL]", "must be a string, a number or a boolean"},
    };
    for (String[] c : refused) {
      Path bad =
          file(
              "docstore.updates.kafka { bootstrap-servers = \"h:1\", topic = t, partitions = [0],"
                  + " client { "
                  + c[0]
                  + " } }");
      assertThatThrownBy(() -> DocstoreConfig.load(bad, Map.of()))
          .as(c[0])
          .isInstanceOf(ConfigError.class)
          .hasMessageContaining("docstore.updates.kafka.client.")
          .hasMessageContaining(c[1]);
    }
  }

  @Test
  void missingConfigFileFailsFast() {
    assertThatThrownBy(() -> DocstoreConfig.load(dir.resolve("nope.conf"), Map.of()))
        .isInstanceOf(ConfigError.class)
        .hasMessageContaining("does not exist");
  }

  @Test
  void adminOffLoopbackIsAllowedWithAToken() throws IOException {
    Path f = file("docstore.http.admin { host = \"0.0.0.0\", token = \"s3cret\" }");
    assertThat(DocstoreConfig.load(f, Map.of()).adminToken()).isEqualTo("s3cret");
  }
}
