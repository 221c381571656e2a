package io.docstore.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.io.FileSystem;
import io.docstore.io.SyncPolicy;
import org.junit.jupiter.api.Test;

class QueueOptionsTest {

  @Test
  void defaults() {
    QueueOptions o = QueueOptions.defaults();
    assertThat(o.syncPolicy()).isEqualTo(SyncPolicy.ALWAYS);
    assertThat(o.segmentSize()).isEqualTo(1L << 30);
    assertThat(o.maxBodyBytes()).isEqualTo(1 << 20);
    assertThat(o.blockSize()).isEqualTo(QueueOptions.DEFAULT_BLOCK_SIZE);
    assertThat(o.blockCacheBytes()).isZero();
    assertThat(o.fileSystem()).isSameAs(FileSystem.real());
    assertThat(o.toString()).contains("sync=always");
  }

  @Test
  void rejectsOutOfRangeValues() {
    assertThatThrownBy(() -> QueueOptions.builder().blockSize(10).build())
        .hasMessageContaining("blockSize");
    assertThatThrownBy(() -> QueueOptions.builder().maxBodyBytes(-1).build())
        .hasMessageContaining("maxBodyBytes");
    assertThatThrownBy(() -> QueueOptions.builder().blockCacheBytes(-1).build())
        .hasMessageContaining("blockCacheBytes");
    assertThatThrownBy(() -> QueueOptions.builder().segmentSize(3L << 30).build())
        .hasMessageContaining("2 GiB");
    assertThatThrownBy(() -> QueueOptions.builder().segmentSize(10).build())
        .hasMessageContaining("segmentSize");
    assertThat(QueueOptions.builder().segmentSize(2_000_000_000L).build().segmentSize())
        .isEqualTo(2_000_000_000L);
  }
}
