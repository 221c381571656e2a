package io.docstore.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.io.CorruptionException;
import io.docstore.service.cache.OffHeapDocCache;
import io.docstore.service.testing.RecordDamage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The documented repair must never make things worse: a rebuild of the index that meets a damaged
 * record in the queue stops, puts the index it had moved aside back, and the store then opens as it
 * did before (the damaged document reads as an error, every other one as written).
 */
class RebuildIndexDamageTest {

  private static final long VICTIM = 0x0123456789ABCDEFL;

  @TempDir Path dir;

  /** Small segments, so that the damaged record lies in a sealed one, as in the report. */
  private static DocStoreOptions options() {
    return DocStoreOptions.builder(new OffHeapDocCache(0))
        .queueOptions(
            io.docstore.queue.QueueOptions.builder().blockSize(1024).segmentSize(16 * 1024).build())
        .build();
  }

  private DocStore open() throws IOException {
    return DocStore.open(dir, options());
  }

  @Test
  void aRebuildThatMeetsDamagePutsTheOldIndexBack() throws Exception {
    try (DocStore s = open()) {
      for (long id = 0; id < 50; id++) {
        s.put(id, ("{\"id\":" + id + "}").getBytes(StandardCharsets.UTF_8));
      }
      s.put(VICTIM, "{\"victim\":true}".getBytes(StandardCharsets.UTF_8));
      for (long id = 50; id < 2000; id++) {
        s.put(
            id,
            ("{\"id\":" + id + ",\"pad\":\"" + id * 7919 + "\"}").getBytes(StandardCharsets.UTF_8));
      }
      s.checkpoint();
    }
    RecordDamage.flipInsideId(dir.resolve("queue"), VICTIM, ".sealed");
    List<String> before = tree(dir);

    assertThatThrownBy(
            () ->
                DocStore.openRebuildingIndex(
                    dir, DocStoreOptions.builder(new OffHeapDocCache(0)).build()))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("back in place");
    assertThat(tree(dir)).as("the data directory after the failed rebuild").isEqualTo(before);

    try (DocStore s = open()) {
      for (long id = 0; id < 50; id++) {
        assertThat(new String(s.get(id).body(), StandardCharsets.UTF_8))
            .isEqualTo("{\"id\":" + id + "}");
      }
      assertThatThrownBy(() -> s.get(VICTIM)).isInstanceOf(CorruptionException.class);
    }
  }

  /** Every file under {@code dir} (relative, with its size), lock files aside. */
  private static List<String> tree(Path dir) throws IOException {
    try (var s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile)
          .filter(p -> !p.getFileName().toString().equals("LOCK"))
          .map(p -> dir.relativize(p) + " " + p.toFile().length())
          .sorted()
          .toList();
    }
  }
}
