package io.docstore.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.io.DirectoryLock;
import io.docstore.io.SyncPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LsmIndex#flushToOs()}: what the files hold while the index is still open (what a crash of
 * the process would leave behind) is copied to another directory, which a fresh index opens. Before
 * the call a small batch is still in the WAL's buffer inside the process; after it, the copy has
 * it.
 */
class FlushToOsTest {

  @TempDir Path tmp;

  private static final IndexOptions OPTIONS =
      IndexOptions.builder().syncPolicy(SyncPolicy.NONE).memTableBytes(1 << 20).build();

  @Test
  void afterFlushToOsAFreshOpenOfTheFilesSeesEveryEntry() throws IOException {
    Path dir = tmp.resolve("live");
    long[] ids = new long[300];
    long[] values = new long[ids.length];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = 7L * i + 1;
      values[i] = 1000L + i;
    }
    try (LsmIndex index = LsmIndex.open(dir, OPTIONS)) {
      index.putAll(ids, values, 150);
      index.flushToOs();
      index.putAll(ids, values, ids.length);
      assertThat(entriesFound(snapshot(dir, "before"), ids, values))
          .as("the second batch (300 entries, under the 64 KiB buffer) is still in the process")
          .isEqualTo(150);

      index.flushToOs();
      assertThat(entriesFound(snapshot(dir, "after"), ids, values))
          .as("after flushToOs the files hold every entry, without close or fsync")
          .isEqualTo(ids.length);

      index.flushToOs(); // nothing buffered: a no-op
      assertThat(entriesFound(snapshot(dir, "again"), ids, values)).isEqualTo(ids.length);
      assertThat(index.get(ids[299])).as("the live index is unaffected").isEqualTo(values[299]);
    }
  }

  @Test
  void failsOnAClosedIndex() throws IOException {
    LsmIndex index = LsmIndex.open(tmp.resolve("closed"), OPTIONS);
    index.close();
    assertThatThrownBy(index::flushToOs).isInstanceOf(IOException.class);
  }

  /** Copies the index's files as the OS has them now (the open index keeps running). */
  private Path snapshot(Path dir, String name) throws IOException {
    Path copy = tmp.resolve(name);
    Files.createDirectories(copy);
    List<Path> files;
    try (Stream<Path> s = Files.list(dir)) {
      files =
          s.filter(Files::isRegularFile)
              .filter(p -> !p.getFileName().toString().equals(DirectoryLock.FILE_NAME))
              .toList();
    }
    for (Path f : files) {
      Files.copy(f, copy.resolve(f.getFileName()));
    }
    return copy;
  }

  private static int entriesFound(Path dir, long[] ids, long[] values) throws IOException {
    int found = 0;
    try (LsmIndex index = LsmIndex.open(dir, OPTIONS)) {
      for (int i = 0; i < ids.length; i++) {
        long v = index.get(ids[i]);
        if (v == values[i]) {
          found++;
        } else {
          assertThat(v)
              .as("id %d is either there with its value or absent", ids[i])
              .isEqualTo(LsmIndex.ABSENT);
        }
      }
    }
    return found;
  }
}
