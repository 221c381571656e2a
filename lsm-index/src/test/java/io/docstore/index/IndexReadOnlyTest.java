package io.docstore.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.io.SyncPolicy;
import io.docstore.io.TestSupport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LsmIndex#openReadOnly}: tables and WALs read as a writer's open would read them, puts stay
 * in memory (and win over what is on disk until close), and the directory is left byte for byte as
 * it was, a torn WAL tail included; a later writer's open still sees only what was written.
 */
class IndexReadOnlyTest {

  @TempDir Path dir;

  private static IndexOptions options() {
    return IndexOptions.builder().syncPolicy(SyncPolicy.ALWAYS).memTableBytes(16 * 1024).build();
  }

  private List<String> snapshot() throws java.io.IOException {
    return TestSupport.fileDigests(dir);
  }

  @Test
  void readsWhatAWriterWouldAndChangesNothing() throws Exception {
    Map<Long, Long> model = new HashMap<>();
    try (LsmIndex index = LsmIndex.open(dir, options())) {
      for (long id = 0; id < 3000; id++) { // several flushed tables, and a WAL
        index.put(id, id * 10 + 1);
        model.put(id, id * 10 + 1);
      }
      for (long id = 0; id < 3000; id += 7) {
        index.delete(id);
        model.remove(id);
      }
    }
    Path newestWal;
    try (var files = Files.list(dir)) {
      newestWal =
          files.filter(p -> p.toString().endsWith(".wal")).sorted().reduce((a, b) -> b).get();
    }
    Files.write(newestWal, new byte[] {1, 2, 3, 4, 5}, StandardOpenOption.APPEND); // torn tail
    List<String> before = snapshot();

    try (LsmIndex index = LsmIndex.openReadOnly(dir, options())) {
      for (long id = 0; id < 3000; id++) {
        long expected = model.getOrDefault(id, id % 7 == 0 ? LsmIndex.DELETED : LsmIndex.ABSENT);
        assertThat(index.get(id)).as("id %d", id).isEqualTo(expected);
      }
      for (long id = 5000; id < 9000; id++) { // more than a memory table: kept in memory
        index.put(id, 1);
      }
      index.put(1, 99);
      assertThat(index.get(1)).isEqualTo(99);
      assertThat(index.get(8999)).isEqualTo(1);
      assertThatThrownBy(index::flush).hasMessageContaining("read-only");
    }
    assertThat(snapshot()).as("the directory after a read-only open").isEqualTo(before);

    try (LsmIndex index = LsmIndex.open(dir, options())) {
      assertThat(index.get(1)).isEqualTo(11);
      assertThat(index.get(8999)).isEqualTo(LsmIndex.ABSENT);
    }
  }

  @Test
  void aMissingDirectoryIsNotCreated() {
    Path none = dir.resolve("none");
    assertThatThrownBy(() -> LsmIndex.openReadOnly(none, options()))
        .isInstanceOf(java.io.FileNotFoundException.class);
    assertThat(none).doesNotExist();
  }
}
