package io.docstore.bench.queue;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.bytes.MappedBytes;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The queue's block read, decided by this measurement: a random {@code blockBytes} read from a 256
 * MiB file on a warm page cache, through a positional {@code FileChannel.read} into a direct buffer
 * (what {@code BlockReader} does) versus a copy out of a Chronicle-Bytes memory mapping of the same
 * file. Both copy the block once into a reusable buffer. Cold-cache behaviour, which the choice
 * hinges on as much, is in docs/background.md (mmap random reads collapse under memory pressure
 * with this disk's 8 MiB read-ahead); see docs/decisions.md.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {
      "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
          "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
      "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED",
          "--add-opens=java.base/java.lang=ALL-UNNAMED",
      "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
          "--add-opens=java.base/java.io=ALL-UNNAMED",
      "--add-opens=java.base/java.util=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED",
      "-Dchronicle.analytics.disable=true"
    })
public class BlockReadBenchmark {

  private static final long FILE_BYTES = 256L << 20;

  @Param({"4096", "8192"})
  int blockBytes;

  private Path file;
  private FileChannel channel;
  private MappedBytes mapped;
  private ByteBuffer direct;
  private byte[] heap;
  private final SplittableRandom random = new SplittableRandom(42);

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    file = Files.createTempFile("block-read", ".bin");
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ByteBuffer chunk = ByteBuffer.allocateDirect(1 << 20);
      SplittableRandom r = new SplittableRandom(1);
      while (chunk.hasRemaining()) {
        chunk.put((byte) r.nextInt());
      }
      for (long pos = 0; pos < FILE_BYTES; pos += chunk.capacity()) {
        chunk.clear();
        while (chunk.hasRemaining()) {
          ch.write(chunk, pos + chunk.position());
        }
      }
    }
    channel = FileChannel.open(file, StandardOpenOption.READ);
    File f = file.toFile();
    mapped = MappedBytes.singleMappedBytes(f, FILE_BYTES, true);
    mapped.singleThreadedCheckDisabled(true);
    mapped.readLimit(FILE_BYTES);
    direct = ByteBuffer.allocateDirect(blockBytes);
    heap = new byte[blockBytes];
    // Warm the page cache with both paths' view of the file.
    for (long pos = 0; pos + blockBytes <= FILE_BYTES; pos += blockBytes) {
      mapped.read(pos, heap, 0, blockBytes);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    mapped.releaseLast();
    channel.close();
    Files.deleteIfExists(file);
  }

  private long randomBlock() {
    return random.nextLong(FILE_BYTES / blockBytes) * blockBytes;
  }

  @Benchmark
  public int positionalRead() throws IOException {
    direct.clear();
    long pos = randomBlock();
    while (direct.hasRemaining()) {
      channel.read(direct, pos + direct.position());
    }
    return direct.get(blockBytes - 1);
  }

  @Benchmark
  public int chronicleMappedCopy() {
    long pos = randomBlock();
    mapped.read(pos, heap, 0, blockBytes);
    return heap[blockBytes - 1];
  }
}
