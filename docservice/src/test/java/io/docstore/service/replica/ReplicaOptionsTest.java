package io.docstore.service.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.io.SyncPolicy;
import io.docstore.queue.QueueOptions;
import io.docstore.queue.format.BlockFormat;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link ReplicaOptions}: its documented defaults, and values that make no sense are refused. */
class ReplicaOptionsTest {

  private final ReplicaOptions.Builder b =
      ReplicaOptions.builder("rsync://h:873/docstore/", Path.of("r"));

  @Test
  void defaults() {
    ReplicaOptions o = b.build();
    assertThat(o.source).isEqualTo("rsync://h:873/docstore/");
    assertThat(o.dir).isEqualTo(Path.of("r"));
    assertThat(o.pullInterval).isEqualTo(Duration.ofMillis(200));
    assertThat(o.rsyncTimeout).isEqualTo(Duration.ofSeconds(30));
    assertThat(o.checkpointInterval).isEqualTo(Duration.ofSeconds(1));
    assertThat(o.maxStaleness).isEqualTo(Duration.ofSeconds(10));
    assertThat(o.expectedBlockBytes)
        .isEqualTo(BlockFormat.HEADER_LENGTH + QueueOptions.DEFAULT_BLOCK_SIZE);
    assertThat(o.rsyncBinary).isEqualTo("rsync");
    assertThat(o.indexOptions.syncPolicy())
        .as("checkpoints sync the index")
        .isEqualTo(SyncPolicy.NONE);
    assertThat(o.cacheBytes).isEqualTo(ReplicaOptions.DEFAULT_CACHE_BYTES);
  }

  @Test
  void setValuesAreKept() {
    ReplicaOptions o =
        b.pullInterval(Duration.ofMillis(50))
            .rsyncTimeout(Duration.ofSeconds(3))
            .checkpointInterval(Duration.ofMillis(300))
            .maxStaleness(Duration.ofSeconds(2))
            .expectedBlockBytes(4096)
            .rsyncBinary("/usr/bin/rsync")
            .cacheBytes(0)
            .build();
    assertThat(o.pullInterval).isEqualTo(Duration.ofMillis(50));
    assertThat(o.rsyncTimeout).isEqualTo(Duration.ofSeconds(3));
    assertThat(o.checkpointInterval).isEqualTo(Duration.ofMillis(300));
    assertThat(o.maxStaleness).isEqualTo(Duration.ofSeconds(2));
    assertThat(o.expectedBlockBytes).isEqualTo(4096);
    assertThat(o.rsyncBinary).isEqualTo("/usr/bin/rsync");
    assertThat(o.cacheBytes).isZero();
  }

  @Test
  void nonsenseIsRefused() {
    assertThatThrownBy(() -> b.pullInterval(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.checkpointInterval(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.rsyncTimeout(Duration.ofMillis(999)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("whole seconds");
    assertThatThrownBy(() -> b.maxStaleness(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.expectedBlockBytes(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> b.cacheBytes(-1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ReplicaOptions.builder(null, Path.of("r")))
        .isInstanceOf(NullPointerException.class);
  }

  @Test
  void theConfigSectionReadsMaxStaleness(@org.junit.jupiter.api.io.TempDir Path tmp)
      throws Exception {
    Path f = tmp.resolve("replica.conf");
    java.nio.file.Files.writeString(f, "docstore.replica.source = \"rsync://h:873/docstore/\"\n");
    assertThat(ReplicaConfig.load(f).maxStaleness())
        .as("the default in config/docstore.conf")
        .isEqualTo(Duration.ofSeconds(10));
    java.nio.file.Files.writeString(
        f,
        "docstore.replica.source = \"rsync://h:873/docstore/\"\n"
            + "docstore.replica.max-staleness = 0s\n");
    assertThatThrownBy(() -> ReplicaConfig.load(f))
        .isInstanceOf(io.docstore.service.config.ConfigError.class)
        .hasMessageContaining("docstore.replica.max-staleness");
  }
}
