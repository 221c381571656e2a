package io.docstore.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.index.bloom.BloomPolicy;
import io.docstore.io.MemoryBudgets;
import io.docstore.io.MemoryLimit;
import io.docstore.io.SyncPolicy;
import org.junit.jupiter.api.Test;

class IndexOptionsTest {

  @Test
  void defaultsAndValidation() {
    IndexOptions d = IndexOptions.defaults();
    assertThat(d.syncPolicy()).isEqualTo(SyncPolicy.ALWAYS);
    MemoryBudgets box = MemoryBudgets.forThisProcess();
    assertThat(d.bloomMemoryBytes()).isEqualTo(box.bloomMemoryBytes());
    assertThat(d.pageCacheBytes()).isEqualTo(box.pageCacheBytes());
    assertThat(d.memTableBytes()).isEqualTo(box.memTableBytes());
    assertThat(d.bloomFalsePositiveRate()).isBetween(0.01, 0.02);
    assertThat(d.bloomPolicy()).isEqualTo(BloomPolicy.USEFULNESS);
    assertThatThrownBy(() -> IndexOptions.builder().memTableBytes(10))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> IndexOptions.builder().bloomFalsePositiveRate(0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> IndexOptions.builder().bloomMemoryBytes(-1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> IndexOptions.builder().maxFrozenTables(0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(IndexOptions.builder().memTableBytes(1 << 20).build().memTableBytes())
        .isEqualTo(1 << 20);
  }

  @Test
  void memoryBudgetsSetByTheCallerAreKeptAndTheRestFollowTheBox() {
    IndexOptions set =
        IndexOptions.builder().memTableBytes(1 << 20).bloomMemoryBytes(0).pageCacheBytes(0).build();
    assertThat(set.memTableBytes()).isEqualTo(1 << 20);
    assertThat(set.bloomMemoryBytes()).isZero();
    assertThat(set.pageCacheBytes()).isZero();
    IndexOptions mixed = IndexOptions.builder().pageCacheBytes(8 << 20).build();
    assertThat(mixed.pageCacheBytes()).isEqualTo(8 << 20);
    assertThat(mixed.bloomMemoryBytes())
        .isEqualTo(
            MemoryBudgets.of(
                    MemoryLimit.detect(),
                    new MemoryBudgets(
                        8 << 20, MemoryBudgets.AUTO, MemoryBudgets.AUTO, MemoryBudgets.AUTO),
                    0)
                .bloomMemoryBytes());
    assertThat(mixed.memTableBytes()).isEqualTo(MemoryBudgets.forThisProcess().memTableBytes());
  }
}
