package io.docstore.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.index.IndexOptions;
import io.docstore.index.LsmIndex;
import io.docstore.io.SyncPolicy;
import io.docstore.queue.DocQueue;
import io.docstore.queue.Op;
import io.docstore.queue.QueueOptions;
import io.docstore.queue.format.SegmentFileName;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code docstore dump} and {@code docstore verify} as a user runs them, on real files. */
class ToolCommandsTest {

  @TempDir Path data;

  private record Run(int exit, String out) {}

  private static Run run(String... args) {
    PrintStream old = System.out;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
    try {
      int exit = Main.run(args);
      return new Run(exit, buf.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(old);
    }
  }

  private Path fillQueue() throws IOException {
    Path queueDir = data.resolve("queue");
    Random rnd = new Random(7);
    try (DocQueue q =
        DocQueue.open(
            queueDir,
            QueueOptions.builder()
                .blockSize(1024)
                .segmentSize(8192)
                .syncPolicy(SyncPolicy.NONE)
                .build())) {
      for (int i = 0; i < 200; i++) {
        byte[] body = new byte[rnd.nextInt(300)];
        rnd.nextBytes(body);
        q.writer().append(i, Op.PUT, 1_700_000_000_000L + i, body);
      }
    }
    return queueDir;
  }

  /** The segment files of a queue directory, in name order (not its LOCK file). */
  private static List<Path> segments(Path dir) throws IOException {
    return files(dir).stream().filter(p -> SegmentFileName.parse(p).isPresent()).toList();
  }

  private static List<Path> files(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.sorted().toList();
    }
  }

  @Test
  void verifyPassesOnAHealthyStoreAndNamesTheDamagedPlace() throws IOException {
    Path queueDir = fillQueue();
    Run ok = run("verify", data.toString());
    assertThat(ok.exit()).as(ok.out()).isZero();
    assertThat(ok.out()).contains("verify: OK");

    Path sealed = segments(queueDir).get(0);
    long offset = Files.size(sealed) / 2;
    try (FileChannel ch =
        FileChannel.open(sealed, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      ch.read(b, offset);
      b.put(0, (byte) (b.get(0) ^ 0x10));
      ch.write(b.rewind(), offset);
    }
    Run bad = run("verify", data.toString());
    assertThat(bad.exit()).isEqualTo(1);
    assertThat(bad.out()).contains(sealed.getFileName().toString()).contains("problem(s)");
  }

  @Test
  void dumpPrintsBlocksAndRecordsOfASegment() throws IOException {
    Path queueDir = fillQueue();
    Path first = segments(queueDir).get(0);
    Run r = run("dump", first.toString());
    assertThat(r.exit()).as(r.out()).isZero();
    assertThat(r.out()).containsIgnoringCase("block").contains("seq");
  }

  @Test
  void dumpOfAStoresSegmentSaysHowManyOfItsRecordsAreLive() throws IOException {
    Path store = data.resolve("store");
    try (io.docstore.service.DocStore s =
        io.docstore.service.DocStore.open(
            store,
            io.docstore.service.DocStoreOptions.builder(
                    new io.docstore.service.cache.OffHeapDocCache(1 << 20))
                .build())) {
      for (long id = 0; id < 100; id++) {
        s.put(id, ("{\"v\":1,\"id\":" + id + "}").getBytes(StandardCharsets.UTF_8));
      }
      for (long id = 0; id < 50; id++) {
        s.put(id, ("{\"v\":2,\"id\":" + id + "}").getBytes(StandardCharsets.UTF_8));
      }
      for (long id = 90; id < 100; id++) {
        s.delete(id);
      }
    }
    Path segment = segments(store.resolve("queue")).get(0);
    Run r = run("dump", segment.toString(), "--no-records");
    assertThat(r.exit()).as(r.out()).isZero();
    // 160 records: 100 first versions (50 overwritten, 10 deleted), 50 second versions, 10 deletes.
    assertThat(r.out()).contains("live records: 90 of 160 (43.8% garbage");
  }

  private Path fillIndex() throws IOException {
    Path indexDir = data.resolve("index");
    try (LsmIndex index =
        LsmIndex.open(indexDir, IndexOptions.builder().syncPolicy(SyncPolicy.NONE).build())) {
      for (long id = 0; id < 5_000; id++) {
        index.put(id * 7, id);
      }
      index.flush();
    }
    return indexDir;
  }

  @Test
  void verifyChecksTheIndexTooAndDumpReadsItsFiles() throws IOException {
    fillQueue();
    Path indexDir = fillIndex();
    Run ok = run("verify", data.toString());
    assertThat(ok.exit()).as(ok.out()).isZero();

    Path table =
        files(indexDir).stream()
            .filter(p -> p.toString().endsWith(".idx"))
            .findFirst()
            .orElseThrow();
    Run dump = run("dump", table.toString(), "--max-entries", "3");
    assertThat(dump.exit()).as(dump.out()).isZero();
    assertThat(dump.out()).isNotBlank();
    assertThat(run("dump", indexDir.resolve("MANIFEST").toString()).out()).contains("manifest");

    try (FileChannel ch =
        FileChannel.open(table, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      ch.read(b, 5000);
      b.put(0, (byte) (b.get(0) ^ 0x01));
      ch.write(b.rewind(), 5000);
    }
    Run bad = run("verify", data.toString());
    assertThat(bad.exit()).isEqualTo(1);
    assertThat(bad.out()).contains(table.getFileName().toString());
  }

  @Test
  void dumpAndVerifyReadTheSmallStateFiles() throws IOException {
    fillQueue();
    io.docstore.service.store.IndexCheckpoint.publish(
        io.docstore.io.FileSystem.real(), data, 42, 1_700_000_000_000L);
    Run dump = run("dump", data.resolve("index.checkpoint").toString());
    assertThat(dump.exit()).as(dump.out()).isZero();
    assertThat(dump.out()).contains("indexed through sequence 42");
    assertThat(run("verify", data.toString()).exit()).isZero();

    Files.write(data.resolve("index.checkpoint"), new byte[7]);
    Run bad = run("verify", data.toString());
    assertThat(bad.exit()).isEqualTo(1);
    assertThat(bad.out()).contains("index.checkpoint");
  }

  @Test
  void dumpAndVerifyReadTheCacheEpoch() throws IOException {
    fillQueue();
    io.docstore.service.cache.CacheEpoch epoch =
        io.docstore.service.cache.CacheEpoch.open(io.docstore.io.FileSystem.real(), data);
    epoch.renew();
    epoch.renew();
    Run dump = run("dump", data.resolve("cache.epoch").toString());
    assertThat(dump.exit()).as(dump.out()).isZero();
    assertThat(dump.out()).contains("store id " + Long.toHexString(epoch.storeId()) + ", epoch 2");
    assertThat(run("verify", data.toString()).exit()).isZero();

    byte[] bytes = Files.readAllBytes(data.resolve("cache.epoch"));
    bytes[30] ^= 4;
    Files.write(data.resolve("cache.epoch"), bytes);
    Run bad = run("verify", data.toString());
    assertThat(bad.exit()).isEqualTo(1);
    assertThat(bad.out()).contains("cache.epoch").contains("offset 40");
  }

  @Test
  void dumpAndVerifyReadTheInboxPoint() throws IOException {
    fillQueue();
    byte[] bytes;
    try (java.io.InputStream golden = getClass().getResourceAsStream("/golden/inbox.point.v1")) {
      bytes = golden.readAllBytes();
    }
    Files.write(data.resolve("inbox.point"), bytes);
    Run dump = run("dump", data.resolve("inbox.point").toString());
    assertThat(dump.exit()).as(dump.out()).isZero();
    assertThat(dump.out())
        .contains("inode 1234567")
        .contains("applied before byte 65536")
        .contains("at or below sequence 5120");
    assertThat(run("verify", data.toString()).exit()).isZero();

    bytes[60] ^= 4;
    Files.write(data.resolve("inbox.point"), bytes);
    Run bad = run("verify", data.toString());
    assertThat(bad.exit()).isEqualTo(1);
    assertThat(bad.out()).contains("inbox.point").contains("offset 72");
  }

  @Test
  void toolsRejectWhatIsNotDocstoreData() throws IOException {
    Path stray = Files.writeString(data.resolve("notes.txt"), "hello");
    assertThat(run("dump", stray.toString()).exit()).isEqualTo(2);
    assertThat(run("verify", data.toString()).exit()).isEqualTo(2);
    assertThat(run("verify", data.resolve("missing").toString()).exit()).isEqualTo(2);
  }

  /**
   * The commands that only read leave the data directory as they found it (no new WAL each time),
   * report what it holds (segments on disk, not just this process's counters), and refuse a
   * directory without docstore data instead of creating a store in it.
   */
  @Test
  void offlineGetAndStatsOnlyRead() throws IOException {
    Path store = data.resolve("store");
    Path input = Files.writeString(data.resolve("in.ndjson"), "{\"id\":1,\"doc\":{\"a\":1}}\n");
    assertThat(run("import", input.toString(), "--data", store.toString()).exit()).isZero();
    // A torn tail, as a crash leaves one: a writer's open would cut it; a read must not.
    Path active;
    try (var files = Files.list(store.resolve("queue"))) {
      active = files.filter(p -> p.toString().endsWith(".active")).findFirst().orElseThrow();
    }
    Files.write(active, new byte[] {0, 0, 0, 9, 1, 2, 3}, java.nio.file.StandardOpenOption.APPEND);
    List<String> before = tree(store);
    for (int i = 0; i < 3; i++) {
      Run get = run("get", "--data", store.toString(), "1");
      assertThat(get.exit()).as(get.out()).isZero();
      assertThat(get.out()).contains("{\"a\":1}");
      Run stats = run("stats", "--data", store.toString());
      assertThat(stats.exit()).as(stats.out()).isZero();
      assertThat(stats.out()).containsPattern("\"segments\" ?: ?1");
    }
    assertThat(tree(store)).as("files and sizes after offline reads").isEqualTo(before);

    Path empty = data.resolve("nothing-here");
    assertThat(run("get", "--data", empty.toString(), "1").exit()).isEqualTo(1);
    assertThat(run("stats", "--data", empty.toString()).exit()).isEqualTo(1);
    assertThat(empty).doesNotExist();
  }

  /** Every file under {@code dir} (lock files aside) with its size, time and digest. */
  private static List<String> tree(Path dir) throws IOException {
    return io.docstore.io.TestSupport.fileDigests(dir);
  }
}
