package io.docstore.bench.queue;

import io.docstore.io.SyncPolicy;
import io.docstore.queue.DocQueue;
import io.docstore.queue.Op;
import io.docstore.queue.QueueOptions;
import io.docstore.queue.QueueRecord;
import io.docstore.queue.QueueStats;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Random {@code get} by address on a warm page cache (ns/op; run with {@code -prof gc} for
 * allocations), for several block sizes and with the decoded-block cache off or on. Setup prints
 * the stored/raw ratio of the filled queue, the other half of the block size trade-off.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Benchmark)
public class QueueGetBenchmark {

  @Param({"value96", "job1k"})
  public String data;

  @Param({"4096", "8192", "16384"})
  public int blockSize;

  @Param({"0"})
  public long cacheBytes;

  @Param({"200000"})
  public int records;

  Path dir;
  DocQueue queue;
  long[] addresses;

  @Setup
  public void fill() throws IOException {
    dir = Files.createTempDirectory("queue-get-bench");
    QueueOptions o =
        QueueOptions.builder()
            .syncPolicy(SyncPolicy.NONE)
            .blockSize(blockSize)
            .blockCacheBytes(cacheBytes)
            .build();
    byte[][] bodies = BenchData.bodies(data, 4096, 7);
    try (DocQueue q = DocQueue.open(dir, o)) {
      addresses = new long[records];
      for (int i = 0; i < records; i++) {
        addresses[i] = q.writer().append(i, Op.PUT, 0, bodies[i & 4095]).address();
      }
      QueueStats s = q.stats();
      System.err.printf(
          "%n[queue get] %s blockSize=%d: %d blocks, raw %d B, stored %d B, ratio %.2f, %.1f records/block,"
              + " mean stored block %.0f B%n",
          data,
          blockSize,
          s.blocks(),
          s.rawBytes(),
          s.storedBytes(),
          (double) s.rawBytes() / s.storedBytes(),
          (double) records / s.blocks(),
          (double) s.storedBytes() / s.blocks());
    }
    queue = DocQueue.open(dir, o);
  }

  @TearDown
  public void close() throws IOException {
    queue.close();
    BenchData.deleteTree(dir);
  }

  @State(Scope.Thread)
  public static class Cursor {
    final SplittableRandom rnd = new SplittableRandom(11);
  }

  @Benchmark
  public QueueRecord get(Cursor c) throws IOException {
    return queue.reader().get(addresses[c.rnd.nextInt(addresses.length)]);
  }
}
