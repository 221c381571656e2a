package io.docstore.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.queue.block.StoredBody;
import io.docstore.queue.tools.QueueVerifier;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bodies compressed ahead of their append ({@link QueueWriter#precompress}, outside the writer's
 * lock, with helper threads for a batch) are stored exactly as compressing them at the append
 * stores them; a body compressed with a dictionary the writer does not use is compressed again;
 * before a dictionary exists nothing is compressed ahead; concurrent writers that compress ahead
 * lose nothing.
 */
class PrecompressTest {

  @TempDir Path dir;

  private static QueueOptions options() {
    return V3Fixtures.options().segmentSize(64 * 1024).build();
  }

  /** The same records, appended once with bodies compressed ahead and once without. */
  private static void appendAll(DocQueue q, List<byte[]> docs, boolean ahead) throws IOException {
    int trained = 300;
    for (int i = 0; i < trained; i++) {
      q.writer().append(i, Op.PUT, i, docs.get(i)); // trains the dictionary
    }
    List<byte[]> rest = docs.subList(trained, docs.size());
    StoredBody[] stored = ahead ? q.writer().precompress(rest) : new StoredBody[rest.size()];
    if (ahead) {
      assertThat(stored).as("compressed ahead once a dictionary exists").doesNotContainNull();
    }
    for (int i = 0; i < rest.size(); i++) {
      int id = trained + i;
      q.writer().append(id, Op.PUT, id, rest.get(i), stored[i]);
    }
    q.writer().sync();
  }

  @Test
  void bodiesCompressedAheadAreStoredByteForByteAsCompressingAtTheAppend() throws IOException {
    Random rnd = new Random(21);
    List<byte[]> docs = new ArrayList<>();
    for (int i = 0; i < 1500; i++) {
      docs.add(
          i % 97 == 5 ? V3Fixtures.noise(rnd, 500) : V3Fixtures.json(rnd, 200 + rnd.nextInt(1200)));
    }
    Path ahead = dir.resolve("ahead");
    Path atAppend = dir.resolve("at-append");
    try (DocQueue a = DocQueue.open(ahead, options());
        DocQueue b = DocQueue.open(atAppend, options())) {
      appendAll(a, docs, true);
      appendAll(b, docs, false);
    }
    List<Path> files = segments(ahead);
    assertThat(files).hasSizeGreaterThan(3);
    assertThat(segments(atAppend)).hasSameSizeAs(files);
    for (Path f : files) {
      assertThat(Files.readAllBytes(f))
          .as(f.getFileName().toString())
          .isEqualTo(Files.readAllBytes(atAppend.resolve(f.getFileName())));
    }
    assertThat(QueueVerifier.verify(ahead)).isEmpty();
  }

  private static List<Path> segments(Path d) throws IOException {
    try (var s = Files.list(d)) {
      return s.filter(p -> p.getFileName().toString().startsWith("seg-")).sorted().toList();
    }
  }

  @Test
  void aBodyCompressedWithAnotherQueuesDictionaryIsCompressedAgain() throws IOException {
    Random rnd = new Random(22);
    StoredBody[] foreign;
    List<byte[]> docs = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      docs.add(V3Fixtures.json(rnd, 800));
    }
    try (DocQueue other = DocQueue.open(dir.resolve("other"), options())) {
      for (int i = 0; i < 300; i++) {
        other.writer().append(i, Op.PUT, i, V3Fixtures.json(new Random(i), 700));
      }
      foreign = other.writer().precompress(docs);
    }
    assertThat(foreign).doesNotContainNull();
    List<Long> addresses = new ArrayList<>();
    try (DocQueue q = DocQueue.open(dir.resolve("q"), options())) {
      for (int i = 0; i < 300; i++) {
        q.writer().append(i, Op.PUT, i, V3Fixtures.json(rnd, 700));
      }
      for (int i = 0; i < docs.size(); i++) {
        addresses.add(q.writer().append(1000 + i, Op.PUT, 1, docs.get(i), foreign[i]).address());
      }
      q.writer().sync();
      for (int i = 0; i < docs.size(); i++) {
        assertThat(q.reader().get(addresses.get(i)).body()).isEqualTo(docs.get(i));
      }
    }
    assertThat(QueueVerifier.verify(dir.resolve("q"))).isEmpty();
  }

  @Test
  void beforeTheDictionaryIsTrainedNothingIsCompressedAhead() throws IOException {
    try (DocQueue q = DocQueue.open(dir, options())) {
      StoredBody[] stored = q.writer().precompress(List.of(V3Fixtures.json(new Random(1), 500)));
      assertThat(stored).containsOnlyNulls();
    }
  }

  @Test
  void concurrentWritersCompressingAheadLoseNothing() throws Exception {
    Map<Long, byte[]> model = new HashMap<>();
    Map<Long, Long> addresses = new HashMap<>();
    int writers = 4;
    int batches = 20;
    try (DocQueue q = DocQueue.open(dir, options())) {
      ExecutorService pool = Executors.newFixedThreadPool(writers);
      List<Future<Map<Long, long[]>>> results = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int writer = w;
        results.add(
            pool.submit(
                () -> {
                  Random rnd = new Random(100 + writer);
                  Map<Long, long[]> mine = new HashMap<>();
                  for (int b = 0; b < batches; b++) {
                    List<byte[]> batch = new ArrayList<>();
                    for (int i = 0; i < 40; i++) {
                      batch.add(V3Fixtures.json(rnd, 100 + rnd.nextInt(1500)));
                    }
                    StoredBody[] stored = q.writer().precompress(batch);
                    for (int i = 0; i < batch.size(); i++) {
                      long id = writer * 1_000_000L + b * 100L + i;
                      long address =
                          q.writer().append(id, Op.PUT, 1, batch.get(i), stored[i]).address();
                      synchronized (model) {
                        model.put(id, batch.get(i));
                      }
                      mine.put(id, new long[] {address});
                    }
                  }
                  return mine;
                }));
      }
      for (Future<Map<Long, long[]>> f : results) {
        f.get().forEach((id, a) -> addresses.put(id, a[0]));
      }
      pool.shutdown();
      q.writer().sync();
      assertThat(addresses).hasSize(writers * batches * 40);
      for (Map.Entry<Long, Long> e : addresses.entrySet()) {
        QueueRecord r = q.reader().get(e.getValue());
        assertThat(r.id()).isEqualTo(e.getKey());
        assertThat(Arrays.equals(r.body(), model.get(e.getKey()))).as("id %d", e.getKey()).isTrue();
      }
    }
    assertThat(QueueVerifier.verify(dir)).isEmpty();
  }
}
