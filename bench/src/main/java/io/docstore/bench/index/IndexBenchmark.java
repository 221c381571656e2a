package io.docstore.bench.index;

import io.docstore.index.IndexOptions;
import io.docstore.index.LsmIndex;
import io.docstore.io.SyncPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
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
 * JMH micro-benchmarks of the index hot paths over a preloaded index: get of a present id (memory
 * table or one index page), get of an absent id (bloom path), and put with {@code sync=none}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xmx2g"})
public class IndexBenchmark {

  @Param({"2000000"})
  int entries;

  private Path dir;
  private LsmIndex index;
  private long[] ids;
  private int next;
  private SplittableRandom rnd;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    dir = Files.createTempDirectory("index-jmh");
    index = LsmIndex.open(dir, IndexOptions.builder().syncPolicy(SyncPolicy.NONE).build());
    ids = new long[entries];
    SplittableRandom r = new SplittableRandom(1);
    for (int i = 0; i < entries; i++) {
      ids[i] = r.nextLong() & Long.MAX_VALUE;
      index.put(ids[i], i);
    }
    index.flush();
    rnd = new SplittableRandom(2);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    index.close();
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  @Benchmark
  public long getPresent() throws IOException {
    int i = next++;
    if (next == entries) {
      next = 0;
    }
    return index.get(ids[i]);
  }

  @Benchmark
  public long getAbsent() throws IOException {
    return index.get(rnd.nextLong() & Long.MAX_VALUE);
  }

  @Benchmark
  public void put() throws IOException {
    index.put(rnd.nextLong() & Long.MAX_VALUE, 1);
  }
}
