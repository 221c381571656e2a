package io.docstore.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.FaultInjectingFileSystem;
import io.docstore.io.FileSystem;
import io.docstore.io.InterceptingFileSystem;
import io.docstore.io.SyncPolicy;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Concurrent appenders with group commit, a concurrent reader and a concurrent tailer. */
class QueueConcurrencyTest {

  @TempDir Path dir;

  /**
   * Eight appenders each append 150 records and wait until each is durable under {@code always},
   * while a tailer follows: every record reads back at its address and in sequence order, and the
   * appenders share fsyncs. The fsyncs are counted under the queue, at the file system, each made
   * to take a millisecond (a slow device, so writers pile up behind the one fsyncing): with group
   * commit there are about a quarter as many as appends, and there must be fewer than half (with
   * every waiter running an fsync of its own there are at least as many).
   */
  @Test
  void concurrentAppendersShareFsyncsAndEverythingReadsBack() throws Exception {
    int threads = 8;
    int perThread = 150;
    AtomicInteger fsyncs = new AtomicInteger();
    FileSystem slowForce =
        new InterceptingFileSystem(
            FileSystem.real(),
            (op, path) -> {
              if (op == FaultInjectingFileSystem.Op.FORCE) {
                fsyncs.incrementAndGet();
                try {
                  Thread.sleep(1);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  throw new InterruptedIOException();
                }
              }
            });
    QueueOptions o =
        QueueOptions.builder()
            .syncPolicy(SyncPolicy.ALWAYS)
            .blockSize(1024)
            .segmentSize(64 * 1024)
            .fileSystem(slowForce)
            .build();
    ConcurrentHashMap<Long, Long> addressBySequence = new ConcurrentHashMap<>();
    try (DocQueue q = DocQueue.open(dir, o)) {
      int fsyncsBefore = fsyncs.get();
      ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
      try {
        Future<Integer> tailed =
            pool.submit(
                () -> {
                  int n = 0;
                  try (QueueTailer t = q.tailer(1)) {
                    while (n < threads * perThread) {
                      QueueRecord r = t.next(30, TimeUnit.SECONDS);
                      assertThat(r).isNotNull();
                      assertThat(r.sequence()).isEqualTo(n + 1);
                      assertThat(ByteBuffer.wrap(r.body()).getLong()).isEqualTo(r.id());
                      n++;
                    }
                  }
                  return n;
                });
        List<Future<?>> writers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          int thread = t;
          writers.add(
              pool.submit(
                  () -> {
                    for (int i = 0; i < perThread; i++) {
                      long id = thread * 1_000_000L + i;
                      byte[] body = ByteBuffer.allocate(8 + i % 50).putLong(id).array();
                      Appended a = q.writer().append(id, Op.PUT, 0, body);
                      q.writer().awaitDurable(a.sequence());
                      assertThat(q.durableSequence()).isGreaterThanOrEqualTo(a.sequence());
                      assertThat(addressBySequence.put(a.sequence(), a.address())).isNull();
                      assertThat(q.reader().get(a.address()).id()).isEqualTo(id);
                    }
                    return null;
                  }));
        }
        for (Future<?> f : writers) {
          f.get(60, TimeUnit.SECONDS);
        }
        assertThat(tailed.get(60, TimeUnit.SECONDS)).isEqualTo(threads * perThread);
      } finally {
        pool.shutdownNow();
      }
      assertThat(addressBySequence).hasSize(threads * perThread);
      int appendFsyncs = fsyncs.get() - fsyncsBefore;
      System.out.printf(
          "queue group commit: %d appends, %d fsyncs%n", threads * perThread, appendFsyncs);
      assertThat(appendFsyncs)
          .as("fsyncs for %d appends", threads * perThread)
          .isPositive()
          .isLessThan(threads * perThread / 2);
    }
  }
}
