package io.docstore.service.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.client.Document;
import io.docstore.io.CorruptionException;
import io.docstore.queue.DocQueue;
import io.docstore.queue.Op;
import io.docstore.queue.QueueOptions;
import io.docstore.queue.QueueRecord;
import io.docstore.queue.QueueTailer;
import io.docstore.queue.format.Address;
import io.docstore.queue.format.SegmentFileName;
import io.docstore.service.DocStore;
import io.docstore.service.DocStoreOptions;
import io.docstore.service.Update;
import io.docstore.service.cache.OffHeapDocCache;
import io.docstore.service.cli.Main;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * A real store with real damage inside a sealed segment, for the tests of what the repairs make of
 * it ({@code rebuild-index --skip-damaged}, {@code repair-segments}): the store, its records read
 * back with the queue's own tailer (the truth the tests compare with), the byte flip, copies of the
 * data directory, and the CLI run in-process.
 */
public final class DamagedStore {

  private DamagedStore() {}

  public static final int IDS = 1000;

  /** Small blocks and segments, so that the damage lies in one sealed segment of several. */
  public static DocStoreOptions options() {
    return DocStoreOptions.builder(new OffHeapDocCache(0))
        .queueOptions(QueueOptions.builder().blockSize(1024).segmentSize(8 * 1024).build())
        .build();
  }

  public record Run(int exit, String out, String err) {}

  public static Run run(String... args) {
    PrintStream out = System.out;
    PrintStream err = System.err;
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    ByteArrayOutputStream e = new ByteArrayOutputStream();
    System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
    try {
      int exit = Main.run(args);
      return new Run(exit, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(out);
      System.setErr(err);
    }
  }

  public static byte[] body(long id, int round) {
    return ("{\"id\":" + id + ",\"round\":" + round + ",\"pad\":\"" + (id * 7919 + round) + "\"}")
        .getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Three rounds: every ID put; then every ID again, every fifth one deleted instead; then the even
   * IDs once more. So the damaged segment (in the second round) holds the newest version of odd IDs
   * (an older one lies before it), deletions of IDs put before, and versions that a later one
   * replaces.
   */
  public static void write(Path dir, int salt) throws IOException {
    try (DocStore s = DocStore.open(dir, options())) {
      for (int round = 0; round < 3; round++) {
        List<Update> batch = new ArrayList<>();
        for (long id = 0; id < IDS; id++) {
          if (round == 2 && id % 2 == 1) {
            continue;
          }
          batch.add(
              round == 1 && id % 5 == 0
                  ? Update.delete(id)
                  : Update.put(id, body(id, round + salt)));
          if (batch.size() == 50) {
            s.apply(batch);
            batch.clear();
          }
        }
        s.apply(batch);
      }
    }
  }

  /** Every record of a healthy queue, in order (read with the queue's own tailer). */
  public static List<QueueRecord> records(Path dataDir) throws IOException {
    List<QueueRecord> out = new ArrayList<>();
    try (DocQueue q = DocQueue.open(dataDir.resolve("queue"), QueueOptions.defaults());
        QueueTailer t = q.tailer(1)) {
      for (QueueRecord r = t.poll(); r != null; r = t.poll()) {
        out.add(r);
      }
    }
    return out;
  }

  /** The newest record of every ID. */
  public static Map<Long, QueueRecord> newest(List<QueueRecord> records) {
    Map<Long, QueueRecord> m = new HashMap<>();
    for (QueueRecord r : records) {
      m.put(r.id(), r);
    }
    return m;
  }

  /** The sealed segment holding the middle of the second round. */
  public static Path damagedSegment(Path dataDir, List<QueueRecord> records) {
    long segment = Address.segment(records.get(IDS + IDS / 2).address());
    Path p = new SegmentFileName(segment, true).in(dataDir.resolve("queue"));
    assertThat(p).as("a sealed segment").exists();
    assertThat(new SegmentFileName(segment + 1, true).in(dataDir.resolve("queue")))
        .as("one sealed after it")
        .exists();
    assertThat(segment).as("one before it").isGreaterThan(1);
    return p;
  }

  /** Flips one byte at {@code offset} of {@code file}. */
  public static void flip(Path file, long offset) throws IOException {
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.seek(offset);
      int b = raf.read();
      raf.seek(offset);
      raf.write(b ^ 0x10);
    }
  }

  public static void flipMiddle(Path file) throws IOException {
    flip(file, Files.size(file) / 2);
  }

  /** The records the damaged store can no longer read (its own reader, record by record). */
  public static Set<Long> unreadable(Path dataDir, List<QueueRecord> records) throws IOException {
    Set<Long> out = new HashSet<>();
    try (DocQueue q = DocQueue.open(dataDir.resolve("queue"), QueueOptions.defaults())) {
      var reader = q.reader();
      for (QueueRecord r : records) {
        try {
          reader.get(r.address());
        } catch (CorruptionException e) {
          out.add(r.address());
        }
      }
    }
    assertThat(out).as("records behind the flipped byte").isNotEmpty();
    return out;
  }

  public static void copyTree(Path from, Path to) throws IOException {
    try (Stream<Path> s = Files.walk(from)) {
      for (Path p : s.toList()) {
        Path t = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(t);
        } else if (!p.getFileName().toString().equals("LOCK")) {
          Files.copy(p, t, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
  }

  /** What a read of {@code id} gave: the body, "404", or "error". */
  public static String read(DocStore s, long id) throws IOException {
    try {
      Document d = s.get(id);
      return d == null ? "404" : new String(d.body(), StandardCharsets.UTF_8);
    } catch (CorruptionException e) {
      return "error";
    }
  }

  public static String expected(QueueRecord newest) {
    return newest.op() == Op.DELETE ? "404" : new String(newest.body(), StandardCharsets.UTF_8);
  }

  /** Every ID reads as its newest version. */
  public static void assertAllExact(Path dir, Map<Long, QueueRecord> newest) throws IOException {
    try (DocStore s = DocStore.open(dir, options())) {
      for (var e : newest.entrySet()) {
        assertThat(read(s, e.getKey())).as("id %d", e.getKey()).isEqualTo(expected(e.getValue()));
      }
    }
  }

  public static Set<Long> set(long[] ids) {
    return new TreeSet<>(Arrays.stream(ids).boxed().toList());
  }

  /** Every file of {@code dir} (lock aside) and its inode. */
  public static Map<Path, Object> inodes(Path dir) throws IOException {
    Map<Path, Object> m = new HashMap<>();
    try (Stream<Path> s = Files.list(dir)) {
      for (Path p : s.toList()) {
        if (!p.getFileName().toString().equals("LOCK")) {
          m.put(p, Files.getAttribute(p, "unix:ino"));
        }
      }
    }
    return m;
  }

  /**
   * Every file under {@code dir} (relative) with its size and a digest of its bytes, lock files
   * aside: to show that a command left a directory exactly as it was.
   */
  public static List<String> tree(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      List<String> out = new ArrayList<>();
      for (Path p : s.filter(Files::isRegularFile).sorted().toList()) {
        if (!p.getFileName().toString().equals("LOCK")) {
          out.add(dir.relativize(p) + " " + Arrays.hashCode(Files.readAllBytes(p)));
        }
      }
      return out;
    }
  }
}
