package io.docstore.bench.runner;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A cgroup v1 memory group under this process's own memory cgroup, with {@code
 * memory.limit_in_bytes} set; the limit covers page cache as well as the JVM's memory. The engine
 * JVM moves itself in (EngineMain); {@link #close()} removes the group once that JVM has exited,
 * which hands its remaining page-cache charges back to the parent group.
 */
final class MemoryCgroup implements AutoCloseable {

  private static final Path MEMORY_ROOT = Path.of("/sys/fs/cgroup/memory");

  private final Path dir;

  private MemoryCgroup(Path dir) {
    this.dir = dir;
  }

  Path dir() {
    return dir;
  }

  /** Creates the group, or says why it cannot (no cgroup v1 memory controller, not writable). */
  static Optional<MemoryCgroup> create(String name, long limitBytes, StringBuilder why) {
    try {
      Path parent = MEMORY_ROOT.resolve(currentMemoryPath().substring(1));
      Path dir = parent.resolve(name);
      Files.createDirectory(dir);
      MemoryCgroup group = new MemoryCgroup(dir);
      try {
        Files.writeString(dir.resolve("memory.limit_in_bytes"), Long.toString(limitBytes));
      } catch (IOException | RuntimeException e) {
        group.close();
        throw e;
      }
      return Optional.of(group);
    } catch (IOException | RuntimeException e) {
      why.append("cannot create a memory cgroup under ").append(MEMORY_ROOT).append(": ").append(e);
      return Optional.empty();
    }
  }

  /** This process's memory cgroup path ("/..."), from the "memory" line of /proc/self/cgroup. */
  static String currentMemoryPath() throws IOException {
    List<String> lines = Files.readAllLines(Path.of("/proc/self/cgroup"));
    for (String line : lines) {
      String[] parts = line.split(":", 3);
      if (parts.length == 3 && List.of(parts[1].split(",")).contains("memory")) {
        return parts[2];
      }
    }
    throw new IOException("no cgroup v1 memory controller in /proc/self/cgroup");
  }

  /** Removes the group; the JVMs that were in it must have exited. */
  @Override
  public void close() throws IOException {
    IOException last = null;
    for (int attempt = 0; attempt < 50; attempt++) {
      try {
        Files.deleteIfExists(dir);
        return;
      } catch (IOException e) {
        last = e;
        try {
          Thread.sleep(100); // a just-exited JVM leaves the group asynchronously
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    }
    throw new IOException("could not remove cgroup " + dir, last);
  }
}
