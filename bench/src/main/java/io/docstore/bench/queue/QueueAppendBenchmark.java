package io.docstore.bench.queue;

import io.docstore.io.SyncPolicy;
import io.docstore.queue.Appended;
import io.docstore.queue.DocQueue;
import io.docstore.queue.Op;
import io.docstore.queue.QueueOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Append throughput (records/s; multiply by the body size for MB/s) with {@code sync=none} and
 * {@code sync=always} (each append waits for durability; concurrent threads share fsyncs), run with
 * {@code -t 1}, {@code -t 2}, {@code -t 8}. {@link #lz4Compress} compresses the same bodies,
 * gathered into blocks of the queue's default block size, in the same run: the ceiling the queue is
 * compared with.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class QueueAppendBenchmark {

  @State(Scope.Benchmark)
  public static class QueueState {
    @Param({"value96", "job1k"})
    public String data;

    @Param({"none", "always"})
    public String sync;

    Path dir;
    DocQueue queue;

    @Setup(Level.Iteration)
    public void open() throws IOException {
      dir = Files.createTempDirectory("queue-append-bench");
      queue = DocQueue.open(dir, QueueOptions.builder().syncPolicy(SyncPolicy.parse(sync)).build());
    }

    @TearDown(Level.Iteration)
    public void close() throws IOException {
      queue.close();
      BenchData.deleteTree(dir);
    }
  }

  @State(Scope.Thread)
  public static class Bodies {
    byte[][] bodies;
    int next;
    long id;

    private static final java.util.concurrent.atomic.AtomicLong SEEDS =
        new java.util.concurrent.atomic.AtomicLong();

    @Setup
    public void setup(QueueState q) {
      long seed = SEEDS.incrementAndGet();
      bodies = BenchData.bodies(q.data, 1024, seed);
      id = seed << 32;
    }

    byte[] next() {
      byte[] b = bodies[next];
      next = (next + 1) & 1023;
      return b;
    }
  }

  @Benchmark
  public long append(QueueState q, Bodies b) throws IOException {
    Appended a = q.queue.writer().append(b.id++, Op.PUT, 1_700_000_000_000L, b.next());
    if (q.sync.equals("always")) {
      q.queue.writer().awaitDurable(a.sequence());
    }
    return a.address();
  }

  /** The same bodies, concatenated into default-size blocks, LZ4-compressed: one op = one block. */
  @State(Scope.Thread)
  public static class Lz4State {
    @Param({"value96", "job1k"})
    public String data;

    final LZ4Compressor compressor = LZ4Factory.fastestInstance().fastCompressor();
    byte[][] blocks;
    byte[] out;
    int next;

    @Setup
    public void setup() {
      byte[][] bodies = BenchData.bodies(data, 4096, 1);
      int blockSize = QueueOptions.DEFAULT_BLOCK_SIZE;
      blocks = new byte[64][blockSize];
      int k = 0;
      for (byte[] block : blocks) {
        int pos = 0;
        while (pos < blockSize) {
          byte[] body = bodies[k++ % bodies.length];
          int n = Math.min(body.length, blockSize - pos);
          System.arraycopy(body, 0, block, pos, n);
          pos += n;
        }
      }
      out = new byte[compressor.maxCompressedLength(blockSize)];
    }
  }

  @Benchmark
  public int lz4Compress(Lz4State s) {
    byte[] block = s.blocks[s.next];
    s.next = (s.next + 1) & 63;
    return s.compressor.compress(block, 0, block.length, s.out, 0, s.out.length);
  }
}
