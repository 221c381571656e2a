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

  /**
   * The bytes {@code dir} occupies now. It may be in use: a file that goes away while {@code du}
   * walks the directory is left out, not an error (the churn workload samples engines as they
   * write).
   */
  static long allocatedBytes(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return 0;
    }
    Path errors = Files.createTempFile("du", ".err");
    try {
      Process p =
          new ProcessBuilder("du", "-s", "-B1", dir.toString())
              .redirectError(errors.toFile())
              .start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      int rc = p.waitFor();
      boolean onlyGone =
          Files.readAllLines(errors).stream()
              .allMatch(l -> l.endsWith("No such file or directory"));
      if (out.isEmpty() || (rc != 0 && !onlyGone)) {
        throw new IOException("du failed: " + out + " " + Files.readString(errors));
      }
      return Long.parseLong(out.split("\\s+")[0]);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    } finally {
      Files.deleteIfExists(errors);
    }
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
