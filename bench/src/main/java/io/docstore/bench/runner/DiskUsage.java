package io.docstore.bench.runner;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Bytes a directory occupies on disk (allocated blocks, so sparse files count what they use). */
final class DiskUsage {

  private DiskUsage() {}

  static long allocatedBytes(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return 0;
    }
    Process p =
        new ProcessBuilder("du", "-s", "-B1", dir.toString()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    try {
      if (p.waitFor() != 0) {
        throw new IOException("du failed: " + out);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    return Long.parseLong(out.split("\\s+")[0]);
  }

  static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
