package io.docstore.bench.queue;

import io.docstore.bench.data.JobDocGenerator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * Record bodies for the queue benchmarks: 96-byte random values (the Indeed benchmark) or ~1.1 KB
 * JSON job documents.
 */
final class BenchData {

  private BenchData() {}

  static byte[][] bodies(String kind, int count, long seed) {
    byte[][] out = new byte[count][];
    SplittableRandom rnd = new SplittableRandom(seed);
    JobDocGenerator gen = new JobDocGenerator(seed);
    for (int i = 0; i < count; i++) {
      switch (kind) {
        case "value96" -> {
          out[i] = new byte[96];
          rnd.nextBytes(out[i]);
        }
        case "job1k" -> out[i] = gen.next(i);
        default -> throw new IllegalArgumentException("unknown data kind " + kind);
      }
    }
    return out;
  }

  static void deleteTree(Path dir) throws IOException {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
