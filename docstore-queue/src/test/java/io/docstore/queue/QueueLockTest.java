package io.docstore.queue;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.io.SyncPolicy;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QueueLockTest {

  @TempDir Path dir;

  @Test
  void aSecondOpenOfTheSameDirectoryFailsUntilTheFirstCloses() throws Exception {
    QueueOptions o = QueueOptions.builder().syncPolicy(SyncPolicy.NONE).build();
    DocQueue first = DocQueue.open(dir, o);
    first.writer().append(1, Op.PUT, 0, new byte[] {1});
    assertThatThrownBy(() -> DocQueue.open(dir, o)).hasMessageContaining("in use");
    first.close();
    try (DocQueue again = DocQueue.open(dir, o)) {
      again.writer().append(2, Op.PUT, 0, new byte[] {2});
    }
  }
}
