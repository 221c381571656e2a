package io.docstore.service.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.service.DocStore;
import io.docstore.service.DocStoreOptions;
import io.docstore.service.DocumentSink;
import io.docstore.service.cache.OffHeapDocCache;
import io.docstore.service.Update;
import io.docstore.service.Written;
import io.docstore.service.updater.UpdateParser;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InboxTest {

  @TempDir Path dir;

  private static void drop(Path inbox, String name, String content) throws IOException {
    Path staging = inbox.getParent().resolve(name + ".staging");
    Files.writeString(staging, content);
    Files.move(staging, inbox.resolve(name));
  }

  private static String body(DocStore s, long id) throws IOException {
    return new String(s.get(id).body(), StandardCharsets.UTF_8);
  }

  @Test
  void appliesFilesInNameOrderAndMovesThem() throws Exception {
    Path inbox = dir.resolve("inbox");
    try (DocStore store = DocStore.open(dir.resolve("data"), DocStoreOptions.builder(new OffHeapDocCache(64L << 20)).build())) {
      Files.createDirectories(inbox);
      drop(inbox, "002.ndjson", "{\"id\":1,\"doc\":{\"v\":2}}\n{\"id\":3,\"op\":\"delete\"}\n");
      drop(inbox, "001.ndjson", "{\"id\":1,\"doc\":{\"v\":1}}\n{\"id\":3,\"doc\":{\"v\":1}}\n");
      drop(inbox, "003.ndjson", "{\"id\":4,\"doc\":{\"v\":4}}\nbroken\n{\"id\":-5,\"doc\":{}}\n");
      Files.writeString(inbox.resolve(".hidden"), "ignored");
      Files.writeString(inbox.resolve("partial.tmp"), "ignored");
      try (Inbox in = Inbox.start(inbox, store, new UpdateParser(1 << 20), 100, 1 << 20, Duration.ofHours(1), new SimpleMeterRegistry())) {
        in.drain();
      }
      assertThat(body(store, 1)).isEqualTo("{\"v\":2}");
      assertThat(store.get(3)).isNull();
      assertThat(body(store, 4)).isEqualTo("{\"v\":4}");
      assertThat(inbox.resolve("done/001.ndjson")).exists();
      assertThat(inbox.resolve("done/002.ndjson")).exists();
      assertThat(inbox.resolve("failed/003.ndjson")).exists();
      String report = Files.readString(inbox.resolve("failed/003.ndjson.errors"));
      assertThat(report).contains("1 updates applied, 2 lines invalid").contains("line 2: invalid JSON").contains("line 3:");
      assertThat(inbox.resolve(".hidden")).exists();
      assertThat(inbox.resolve("partial.tmp")).exists();
    }
  }

  @Test
  void aStoreFailureLeavesTheFileForARetryThatReappliesIdempotently() throws Exception {
    Path inbox = dir.resolve("inbox");
    Files.createDirectories(inbox);
    drop(inbox, "a.ndjson", "{\"id\":1,\"doc\":{\"v\":1}}\n{\"id\":2,\"doc\":{\"v\":2}}\n{\"id\":3,\"doc\":{\"v\":3}}\n");
    try (DocStore store = DocStore.open(dir.resolve("data"), DocStoreOptions.builder(new OffHeapDocCache(64L << 20)).build())) {
      AtomicInteger batches = new AtomicInteger();
      // Fails after the first batch, as a crash halfway through the file would.
      DocumentSink flaky = new DocumentSink() {
        @Override
        public List<Written> apply(List<Update> updates) throws IOException {
          if (batches.incrementAndGet() == 2) {
            throw new IOException("disk on fire");
          }
          return store.apply(updates);
        }
      };
      try (Inbox in = Inbox.start(inbox, flaky, new UpdateParser(1 << 20), 1, 1 << 20, Duration.ofHours(1), new SimpleMeterRegistry())) {
        try {
          in.drain();
        } catch (IOException expected) {
          // left in place
        }
        assertThat(inbox.resolve("a.ndjson")).exists();
        assertThat(body(store, 1)).isEqualTo("{\"v\":1}");
        assertThat(store.get(3)).isNull();
        in.drain();
      }
      assertThat(inbox.resolve("done/a.ndjson")).exists();
      assertThat(body(store, 1)).isEqualTo("{\"v\":1}");
      assertThat(body(store, 3)).isEqualTo("{\"v\":3}");
    }
  }

  @Test
  void thePollerPicksUpFilesByItself() throws Exception {
    Path inbox = dir.resolve("inbox");
    try (DocStore store = DocStore.open(dir.resolve("data"), DocStoreOptions.builder(new OffHeapDocCache(64L << 20)).build());
        Inbox in = Inbox.start(inbox, store, new UpdateParser(1 << 20), 100, 1 << 20, Duration.ofMillis(20), new SimpleMeterRegistry())) {
      drop(inbox, "x.ndjson", "{\"id\":9,\"doc\":{\"v\":9}}\n");
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (!Files.exists(inbox.resolve("done/x.ndjson")) && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(inbox.resolve("done/x.ndjson")).exists();
      assertThat(body(store, 9)).isEqualTo("{\"v\":9}");
    }
  }
}
