package io.docstore.service.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.io.SyncPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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

  @Test
  void cachesThatDoNotFitTheJvmsDirectMemoryStopTheStartWithTheKeys() {
    DocstoreConfig c = DocstoreConfig.load();
    assertThatThrownBy(() -> c.requireCachesFit(512L << 20, false)).isInstanceOf(ConfigError.class)
        .hasMessageContaining("docstore.index.page-cache").hasMessageContaining("index.bloom-memory 64 MiB")
        .hasMessageContaining("cache.bytes 256 MiB").hasMessageContaining("need 576 MiB")
        .hasMessageContaining("MaxDirectMemorySize");
    c.requireCachesFit(1L << 30, false);
    DocstoreConfig small = DocstoreConfig.load(null, Map.of("docstore.index.page-cache", "32M"));
    small.requireCachesFit(512L << 20, false);
    // With memcached the document cache is not in process, except on a replica.
    DocstoreConfig memcached = DocstoreConfig.load(null, Map.of("docstore.cache.memcached.servers",
        java.util.List.of("127.0.0.1:11211")));
    memcached.requireCachesFit(512L << 20, false);
    assertThatThrownBy(() -> memcached.requireCachesFit(512L << 20, true)).hasMessageContaining("cache.bytes 256 MiB");
    assertThat(io.docstore.io.MemoryLimit.detect().maxDirectBytes()).isPositive();
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
    assertThat(c.indexPageCacheBytes()).isEqualTo(256L << 20);
    assertThat(c.queueBlockCacheBytes()).isZero();
    assertThat(c.queueMappedReads()).isTrue();
    assertThat(c.indexMappedReads()).isTrue();
    assertThat(c.queueBytesPerSync()).isEqualTo(64L << 20);
  }

  @Test
  void primaryAndReplicaShareTheIndexOptions() {
    DocstoreConfig c = DocstoreConfig.load(null, Map.of("docstore.index.page-cache", "8M", "docstore.index.bloom-memory", "1M",
        "docstore.index.mapped-reads", "false"));
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
    Path f = file("docstore { sync = \"interval:20\", http.read.port = 9000, cache.memcached.servers = [\"127.0.0.1:11311\"] }");
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
      assertThat(DocstoreConfig.load(f, Map.of()).checkpointInterval()).isEqualTo(Duration.ofSeconds(3));
    } finally {
      System.clearProperty("docstore.index.checkpoint-interval");
    }
  }

  @Test
  void unknownKeysAreRejectedByName() throws IOException {
    Path f = file("docstore.http.raed.port = 1");
    assertThatThrownBy(() -> DocstoreConfig.load(f, Map.of()))
        .isInstanceOf(ConfigError.class).hasMessageContaining("docstore.http.raed.port").hasMessageContaining("unknown key");
  }

  @Test
  void badValuesNameTheKeyAndReason() throws IOException {
    String[][] cases = {
        {"docstore.http.read.port = 70000", "docstore.http.read.port", "between 0 and 65535"},
        {"docstore.sync = sometimes", "docstore.sync", "unknown sync policy"},
        {"docstore.queue.block-size = lots", "docstore.queue.block-size", ""},
        {"docstore.index.bloom-false-positive-rate = 1.5", "docstore.index.bloom-false-positive-rate", "strictly between"},
        {"docstore.http.idle-timeout = 0s", "docstore.http.idle-timeout", "positive"},
        {"docstore.cache.memcached.servers = [\"nohostport\"]", "docstore.cache.memcached.servers", "host:port"},
        {"docstore.http.admin.host = \"0.0.0.0\"", "docstore.http.admin.token", "loopback"},
        {"docstore.http.max-request-line = 1K", "docstore.http.max-request-line", "multi-get"},
        {"docstore.data-dir = \"\"", "docstore.data-dir", "empty"},
        {"docstore.queue.bytes-per-sync = -1", "docstore.queue.bytes-per-sync", ""},
    };
    for (String[] c : cases) {
      Path f = file(c[0]);
      assertThatThrownBy(() -> DocstoreConfig.load(f, Map.of())).as(c[0])
          .isInstanceOf(ConfigError.class).hasMessageContaining(c[1]).hasMessageContaining(c[2]);
    }
  }

  @Test
  void missingConfigFileFailsFast() {
    assertThatThrownBy(() -> DocstoreConfig.load(dir.resolve("nope.conf"), Map.of()))
        .isInstanceOf(ConfigError.class).hasMessageContaining("does not exist");
  }

  @Test
  void adminOffLoopbackIsAllowedWithAToken() throws IOException {
    Path f = file("docstore.http.admin { host = \"0.0.0.0\", token = \"s3cret\" }");
    assertThat(DocstoreConfig.load(f, Map.of()).adminToken()).isEqualTo("s3cret");
  }
}
