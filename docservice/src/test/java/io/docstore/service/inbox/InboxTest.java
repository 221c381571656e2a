package io.docstore.service.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.io.CorruptionException;
import io.docstore.io.FileSystem;
import io.docstore.service.DocStore;
import io.docstore.service.DocStoreOptions;
import io.docstore.service.DocumentSink;
import io.docstore.service.Update;
import io.docstore.service.Written;
import io.docstore.service.cache.OffHeapDocCache;
import io.docstore.service.updater.UpdateParser;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InboxTest {

  @TempDir Path dir;

  private static void drop(Path inbox, String name, String content) throws IOException {
    Path staging = inbox.getParent().resolve(name + ".staging");
    Files.writeString(staging, content);
    Files.move(staging, inbox.resolve(name), StandardCopyOption.ATOMIC_MOVE);
  }

  private static String body(DocStore s, long id) throws IOException {
    return new String(s.get(id).body(), StandardCharsets.UTF_8);
  }

  @Test
  void appliesFilesInNameOrderAndMovesThem() throws Exception {
    Path inbox = dir.resolve("inbox");
    try (DocStore store =
        DocStore.open(
            dir.resolve("data"), DocStoreOptions.builder(new OffHeapDocCache(64L << 20)).build())) {
      Files.createDirectories(inbox);
      drop(inbox, "002.ndjson", "{\"id\":1,\"doc\":{\"v\":2}}\n{\"id\":3,\"op\":\"delete\"}\n");
      drop(inbox, "001.ndjson", "{\"id\":1,\"doc\":{\"v\":1}}\n{\"id\":3,\"doc\":{\"v\":1}}\n");
      drop(inbox, "003.ndjson", "{\"id\":4,\"doc\":{\"v\":4}}\nbroken\n{\"id\":-5,\"doc\":{}}\n");
      Files.writeString(inbox.resolve(".hidden"), "ignored");
      Files.writeString(inbox.resolve("partial.tmp"), "ignored");
      try (Inbox in =
          Inbox.start(
              inbox,
              dir.resolve("data"),
              store,
              new UpdateParser(1 << 20),
              100,
              1 << 20,
              Duration.ofHours(1),
              new SimpleMeterRegistry())) {
        in.drain();
      }
      assertThat(body(store, 1)).isEqualTo("{\"v\":2}");
      assertThat(store.get(3)).isNull();
      assertThat(body(store, 4)).isEqualTo("{\"v\":4}");
      assertThat(inbox.resolve("done/001.ndjson")).exists();
      assertThat(inbox.resolve("done/002.ndjson")).exists();
      assertThat(inbox.resolve("failed/003.ndjson")).exists();
      String report = Files.readString(inbox.resolve("failed/003.ndjson.errors"));
      assertThat(report)
          .contains("1 updates applied, 2 lines invalid")
          .contains("line 2: invalid JSON")
          .contains("line 3:");
      assertThat(inbox.resolve(".hidden")).exists();
      assertThat(inbox.resolve("partial.tmp")).exists();
    }
  }

  @Test
  void aStoreFailureLeavesTheFileForARetryFromWhereItStopped() throws Exception {
    Path inbox = dir.resolve("inbox");
    Files.createDirectories(inbox);
    drop(
        inbox,
        "a.ndjson",
        "{\"id\":1,\"doc\":{\"v\":1}}\n{\"id\":2,\"doc\":{\"v\":2}}\n{\"id\":3,\"doc\":{\"v\":3}}\n");
    try (DocStore store =
        DocStore.open(
            dir.resolve("data"), DocStoreOptions.builder(new OffHeapDocCache(64L << 20)).build())) {
      AtomicInteger batches = new AtomicInteger();
      // Fails after the first batch, as a crash halfway through the file would.
      DocumentSink flaky =
          new DocumentSink() {
            @Override
            public List<Written> apply(List<Update> updates) throws IOException {
              if (batches.incrementAndGet() == 2) {
                throw new IOException("disk on fire");
              }
              return store.apply(updates);
            }

            @Override
            public long lastSequence() {
              return store.lastSequence();
            }

            @Override
            public Replay replay(long after) throws IOException {
              return store.replay(after);
            }
          };
      try (Inbox in =
          Inbox.start(
              inbox,
              dir.resolve("data"),
              flaky,
              new UpdateParser(1 << 20),
              1,
              1 << 20,
              Duration.ofHours(1),
              new SimpleMeterRegistry())) {
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
      assertThat(records(store)).containsExactly("1={\"v\":1}", "2={\"v\":2}", "3={\"v\":3}");
      assertThat(dir.resolve("data").resolve(InboxPoint.FILE_NAME)).doesNotExist();
    }
  }

  /**
   * A sink that stores its second batch and then fails, as a crash after the batch became durable
   * would.
   */
  private static DocumentSink failingAfterSecondBatch(DocStore store, boolean storeIt) {
    AtomicInteger batches = new AtomicInteger();
    return new DocumentSink() {
      @Override
      public List<Written> apply(List<Update> updates) throws IOException {
        if (batches.incrementAndGet() == 2) {
          if (storeIt) {
            store.apply(updates);
          }
          throw new IOException("crash");
        }
        return store.apply(updates);
      }

      @Override
      public long lastSequence() {
        return store.lastSequence();
      }

      @Override
      public Replay replay(long after) throws IOException {
        return store.replay(after);
      }
    };
  }

  private static Inbox start(Path inbox, Path data, DocumentSink sink) throws IOException {
    return Inbox.start(
        inbox,
        data,
        sink,
        new UpdateParser(1 << 20),
        3,
        1 << 20,
        Duration.ofHours(1),
        new SimpleMeterRegistry());
  }

  /** Every record of the store as ID=body, in sequence order. */
  private static List<String> records(DocStore store) throws IOException {
    List<String> out = new ArrayList<>();
    try (DocumentSink.Replay r = store.replay(0)) {
      for (Update u; (u = r.next()) != null; ) {
        out.add(
            u.id()
                + "="
                + (u.isDelete() ? "deleted" : new String(u.body(), StandardCharsets.UTF_8)));
      }
    }
    return out;
  }

  private static String lines(String value, int from, int to) {
    StringBuilder b = new StringBuilder();
    for (int i = from; i <= to; i++) {
      b.append("{\"id\":").append(i).append(",\"doc\":{\"v\":\"").append(value).append("\"}}\n");
    }
    return b.toString();
  }

  @Test
  void resumesAfterTheRecordedPointAndNeverOverwritesANewerWrite() throws Exception {
    Path inbox = dir.resolve("inbox");
    Path data = dir.resolve("data");
    Files.createDirectories(inbox);
    drop(inbox, "b.ndjson", lines("b", 1, 9));
    try (DocStore store =
        DocStore.open(data, DocStoreOptions.builder(new OffHeapDocCache(64L << 20)).build())) {
      try (Inbox in = start(inbox, data, failingAfterSecondBatch(store, true))) {
        assertThatThrownBy(in::drain).hasMessage("crash");
      }
      // Batches 1 and 2 are in the store; the point records batch 1 only.
      InboxPoint point = InboxPoint.read(FileSystem.real(), data);
      assertThat(point.offset()).isEqualTo(lines("b", 1, 3).length());
      store.put(2, "{\"admin\":2}".getBytes(StandardCharsets.UTF_8));
      store.put(5, "{\"admin\":5}".getBytes(StandardCharsets.UTF_8));
      // A file that sorts first waits for the one in progress.
      drop(inbox, "a.ndjson", lines("a", 10, 10));
      try (Inbox in = start(inbox, data, store)) {
        assertThat(in.drain()).isEqualTo(2);
      }
      assertThat(inbox.resolve("done/a.ndjson")).exists();
      assertThat(inbox.resolve("done/b.ndjson")).exists();
      assertThat(body(store, 2)).isEqualTo("{\"admin\":2}");
      assertThat(body(store, 5)).isEqualTo("{\"admin\":5}");
      assertThat(body(store, 9)).isEqualTo("{\"v\":\"b\"}");
      List<String> expected = new ArrayList<>();
      for (int i = 1; i <= 6; i++) {
        expected.add(i + "={\"v\":\"b\"}");
      }
      expected.addAll(List.of("2={\"admin\":2}", "5={\"admin\":5}"));
      for (int i = 7; i <= 9; i++) {
        expected.add(i + "={\"v\":\"b\"}");
      }
      expected.add("10={\"v\":\"a\"}");
      assertThat(records(store)).containsExactlyElementsOf(expected);
    }
  }

  @Test
  void aDifferentFileUnderTheSameNameStartsFromItsFirstLine() throws Exception {
    Path inbox = dir.resolve("inbox");
    Path data = dir.resolve("data");
    Files.createDirectories(inbox);
    drop(inbox, "x.ndjson", lines("a", 1, 6));
    try (DocStore store =
        DocStore.open(data, DocStoreOptions.builder(new OffHeapDocCache(64L << 20)).build())) {
      try (Inbox in = start(inbox, data, failingAfterSecondBatch(store, false))) {
        assertThatThrownBy(in::drain).hasMessage("crash");
      }
      assertThat(InboxPoint.read(FileSystem.real(), data).offset())
          .isEqualTo(lines("a", 1, 3).length());
      // Same name, same size, same modification time: only the inode tells them apart.
      FileTime modified = Files.getLastModifiedTime(inbox.resolve("x.ndjson"));
      drop(inbox, "x.ndjson", lines("b", 1, 6));
      Files.setLastModifiedTime(inbox.resolve("x.ndjson"), modified);
      try (Inbox in = start(inbox, data, store)) {
        in.drain();
      }
      for (int i = 1; i <= 6; i++) {
        assertThat(body(store, i)).as("document %d", i).isEqualTo("{\"v\":\"b\"}");
      }
    }
  }

  @Test
  void aDamagedPointStopsTheInboxUntilItIsRemoved() throws Exception {
    Path inbox = dir.resolve("inbox");
    Path data = dir.resolve("data");
    Files.createDirectories(inbox);
    drop(inbox, "x.ndjson", lines("a", 1, 2));
    try (DocStore store =
        DocStore.open(data, DocStoreOptions.builder(new OffHeapDocCache(64L << 20)).build())) {
      Files.write(data.resolve(InboxPoint.FILE_NAME), new byte[InboxPoint.LENGTH]);
      try (Inbox in = start(inbox, data, store)) {
        assertThatThrownBy(in::drain)
            .isInstanceOf(CorruptionException.class)
            .hasMessageContaining("inbox point");
        assertThat(inbox.resolve("x.ndjson")).exists();
        Files.delete(data.resolve(InboxPoint.FILE_NAME));
        assertThat(in.drain()).isEqualTo(1);
      }
      assertThat(body(store, 2)).isEqualTo("{\"v\":\"a\"}");
    }
  }

  @Test
  void thePointRoundTripsInTheSpecifiedLayout() throws Exception {
    Path data = dir.resolve("data");
    Files.createDirectories(data);
    InboxPoint p =
        new InboxPoint(
            new InboxPoint.FileId(2049, 1234567, 1_000_000, 1_795_000_000_123_456_789L),
            65_536,
            5120);
    p.publish(FileSystem.real(), data);
    assertThat(InboxPoint.read(FileSystem.real(), data)).isEqualTo(p);
    // The worked example of docs/formats/inbox-point.md, frozen as a golden file.
    try (InputStream golden = getClass().getResourceAsStream("/golden/inbox.point.v1")) {
      assertThat(Files.readAllBytes(data.resolve(InboxPoint.FILE_NAME)))
          .isEqualTo(golden.readAllBytes());
    }
  }

  @Test
  void thePollerPicksUpFilesByItself() throws Exception {
    Path inbox = dir.resolve("inbox");
    try (DocStore store =
            DocStore.open(
                dir.resolve("data"),
                DocStoreOptions.builder(new OffHeapDocCache(64L << 20)).build());
        Inbox in =
            Inbox.start(
                inbox,
                dir.resolve("data"),
                store,
                new UpdateParser(1 << 20),
                100,
                1 << 20,
                Duration.ofMillis(20),
                new SimpleMeterRegistry())) {
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
