package io.docstore.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.index.bloom.BloomPolicy;
import io.docstore.io.SyncPolicy;
import org.junit.jupiter.api.Test;

class IndexOptionsTest {

  @Test
  void defaultsAndValidation() {
    IndexOptions d = IndexOptions.defaults();
    assertThat(d.syncPolicy()).isEqualTo(SyncPolicy.ALWAYS);
    assertThat(d.bloomMemoryBytes()).isEqualTo(64L << 20);
    assertThat(d.bloomFalsePositiveRate()).isBetween(0.01, 0.02);
    assertThat(d.bloomPolicy()).isEqualTo(BloomPolicy.USEFULNESS);
    assertThatThrownBy(() -> IndexOptions.builder().memTableBytes(10)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> IndexOptions.builder().bloomFalsePositiveRate(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> IndexOptions.builder().bloomMemoryBytes(-1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> IndexOptions.builder().maxFrozenTables(0)).isInstanceOf(IllegalArgumentException.class);
    assertThat(IndexOptions.builder().memTableBytes(1 << 20).build().memTableBytes()).isEqualTo(1 << 20);
  }
}
