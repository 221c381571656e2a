package io.docstore.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.io.SyncPolicy;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LsmIndexLockTest {

  @TempDir Path dir;

  @Test
  void aSecondOpenOfTheSameDirectoryFailsUntilTheFirstCloses() throws Exception {
    IndexOptions o = IndexOptions.builder().syncPolicy(SyncPolicy.NONE).build();
    LsmIndex first = LsmIndex.open(dir, o);
    first.put(1, 10);
    assertThatThrownBy(() -> LsmIndex.open(dir, o)).hasMessageContaining("in use");
    first.close();
    try (LsmIndex again = LsmIndex.open(dir, o)) {
      assertThat(again.get(1)).isEqualTo(10);
    }
  }
}
