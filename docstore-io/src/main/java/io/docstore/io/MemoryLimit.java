package io.docstore.io;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * The memory this process may use: the box's limit (the memory cgroup's limit where there is one,
 * else the machine's RAM) and this JVM's own limits for its heap and for direct memory. It owns
 * reading them ({@code /proc/self/cgroup}, {@code memory.max} or {@code memory.limit_in_bytes}
 * under {@code /sys/fs/cgroup}, {@code /proc/meminfo}); {@link MemoryBudgets} turns them into
 * default cache sizes.
 *
 * <p>The cgroup limit is the smallest limit on the path from the process's own cgroup up to the
 * hierarchy's root (a parent's limit binds its children); a level whose file is missing or says
 * {@code max} (v2) or a number of an exbibyte or more (v1's "unlimited") sets none. A limit at or
 * above the RAM counts as none. Where the files cannot be read at all (another OS), the RAM is the
 * total the JVM reports.
 *
 * @param bytes the memory the box allows this process: page cache of its files included, as a
 *     memory cgroup charges it
 * @param source where {@code bytes} came from: {@code cgroup v2 limit}, {@code cgroup v1 limit},
 *     {@code RAM} ({@code /proc/meminfo}) or {@code JVM total memory}
 * @param maxHeapBytes this JVM's heap limit ({@code -Xmx}, by default a quarter of {@code bytes})
 * @param maxDirectBytes this JVM's direct memory limit ({@code -XX:MaxDirectMemorySize}, by default
 *     the heap limit)
 */
public record MemoryLimit(long bytes, String source, long maxHeapBytes, long maxDirectBytes) {

  /**
   * A cgroup limit this large or larger means none (v1 writes "unlimited" as 2^63 rounded to a
   * page).
   */
  private static final long NO_LIMIT = 1L << 60;

  private static volatile MemoryLimit detected;

  public MemoryLimit {
    if (bytes <= 0 || maxHeapBytes <= 0 || maxDirectBytes <= 0) {
      throw new IllegalArgumentException("memory limits must be positive");
    }
  }

  /** This process's limits, read once per JVM. */
  public static MemoryLimit detect() {
    MemoryLimit m = detected;
    if (m == null) {
      m = detect(Path.of("/"));
      detected = m;
    }
    return m;
  }

  /**
   * The limits as read under {@code root} (a directory holding {@code proc} and {@code
   * sys/fs/cgroup}).
   */
  static MemoryLimit detect(Path root) {
    long heap = Runtime.getRuntime().maxMemory();
    long direct = directLimit(heap);
    OptionalLong meminfo = memTotal(root.resolve("proc/meminfo"));
    long ram = meminfo.isPresent() ? meminfo.getAsLong() : jvmTotalMemory();
    String ramSource = meminfo.isPresent() ? "RAM" : "JVM total memory";
    List<String> groups = lines(root.resolve("proc/self/cgroup"));
    Path cgroups = root.resolve("sys/fs/cgroup");
    String v1 = v1MemoryPath(groups);
    OptionalLong limit;
    String version;
    if (v1 != null && Files.isDirectory(cgroups.resolve("memory"))) {
      limit = smallestLimit(cgroups.resolve("memory"), v1, "memory.limit_in_bytes");
      version = "cgroup v1 limit";
    } else {
      limit = smallestLimit(cgroups, v2Path(groups), "memory.max");
      version = "cgroup v2 limit";
    }
    if (limit.isPresent() && limit.getAsLong() < ram) {
      return new MemoryLimit(limit.getAsLong(), version, heap, direct);
    }
    return new MemoryLimit(ram, ramSource, heap, direct);
  }

  /**
   * Where the number came from and the number, e.g. "cgroup v2 limit 512 MiB" or "RAM 15.5 GiB".
   */
  public String describe() {
    return source + " " + size(bytes);
  }

  /**
   * The direct memory that off-heap caches may take together under a direct memory limit of {@code
   * maxDirectBytes}: three quarters, the rest is left to I/O buffers (Netty's, the queue's and the
   * index's write buffers).
   */
  public static long cacheShare(long maxDirectBytes) {
    return maxDirectBytes / 4 * 3;
  }

  /** Bytes as "512 MiB", "1 GiB", "15.5 GiB" or "96 KiB". */
  public static String size(long bytes) {
    if (bytes >= 1L << 30) {
      double gib = bytes / (double) (1L << 30);
      return gib == Math.rint(gib)
          ? (long) gib + " GiB"
          : String.format(Locale.ROOT, "%.1f GiB", gib);
    }
    if (bytes >= 1L << 20) {
      return (bytes >> 20) + " MiB";
    }
    return (bytes >> 10) + " KiB";
  }

  /** {@code -XX:MaxDirectMemorySize} when set, else the JVM's default: the heap limit. */
  private static long directLimit(long heap) {
    try {
      HotSpotDiagnosticMXBean hs =
          ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
      long set = hs == null ? 0 : Long.parseLong(hs.getVMOption("MaxDirectMemorySize").getValue());
      if (set > 0) {
        return set;
      }
    } catch (IllegalArgumentException e) {
      // not a HotSpot VM: the default rule
    }
    return heap;
  }

  private static long jvmTotalMemory() {
    java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean sun
        && sun.getTotalMemorySize() > 0) {
      return sun.getTotalMemorySize();
    }
    return Runtime.getRuntime().maxMemory() * 4; // the JVM's default heap is a quarter of it
  }

  private static OptionalLong memTotal(Path meminfo) {
    for (String line : lines(meminfo)) {
      if (line.startsWith("MemTotal:")) {
        String[] parts = line.trim().split("\\s+");
        try {
          long kib = Long.parseLong(parts[1]);
          return kib > 0 ? OptionalLong.of(kib << 10) : OptionalLong.empty();
        } catch (RuntimeException e) {
          return OptionalLong.empty();
        }
      }
    }
    return OptionalLong.empty();
  }

  /** The path of the v1 "memory" controller's line ({@code N:memory[,...]:/path}), or null. */
  private static String v1MemoryPath(List<String> groups) {
    for (String line : groups) {
      String[] parts = line.split(":", 3);
      if (parts.length == 3 && List.of(parts[1].split(",")).contains("memory")) {
        return parts[2];
      }
    }
    return null;
  }

  /** The path of the v2 line ({@code 0::/path}), or "/" when there is none. */
  private static String v2Path(List<String> groups) {
    for (String line : groups) {
      if (line.startsWith("0::")) {
        return line.substring(3);
      }
    }
    return "/";
  }

  /**
   * The smallest limit in {@code file} from the cgroup at {@code path} up to {@code base}, the
   * hierarchy's root. A path that is not there (a container whose hierarchy is mounted at its own
   * cgroup shows its path from the host) is walked up like the others, so the container's own
   * limit, at the root of what it sees, still counts.
   */
  private static OptionalLong smallestLimit(Path base, String path, String file) {
    Path dir = base.resolve(path.startsWith("/") ? path.substring(1) : path).normalize();
    if (!dir.startsWith(base)) {
      dir = base;
    }
    long smallest = Long.MAX_VALUE;
    while (true) {
      long limit = limitIn(dir.resolve(file));
      smallest = Math.min(smallest, limit);
      if (dir.equals(base)) {
        break;
      }
      dir = dir.getParent();
    }
    return smallest < NO_LIMIT ? OptionalLong.of(smallest) : OptionalLong.empty();
  }

  /** The limit a cgroup file sets, or {@link Long#MAX_VALUE} for none (missing, "max", garbage). */
  private static long limitIn(Path file) {
    List<String> l = lines(file);
    if (l.isEmpty()) {
      return Long.MAX_VALUE;
    }
    try {
      long v = Long.parseLong(l.get(0).trim());
      return v > 0 ? v : Long.MAX_VALUE;
    } catch (NumberFormatException e) {
      return Long.MAX_VALUE; // "max", or nothing we understand
    }
  }

  private static List<String> lines(Path p) {
    try {
      return Files.readAllLines(p);
    } catch (IOException | RuntimeException e) {
      return List.of();
    }
  }
}
