package io.docstore.bench.workloads;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * This process's I/O and memory counters from {@code /proc/self} (Linux), plus the block devices'
 * completed reads from {@code /sys/block}. Missing files (another OS) read as zero.
 *
 * <p>{@code read_bytes}/{@code write_bytes} count bytes this process (all its threads, native ones
 * included) caused to be read from or sent to storage, page-fault reads of mapped files included;
 * the device read count is machine-wide (other processes' reads included).
 */
public final class ProcSelf {

  private ProcSelf() {}

  /** Counters at one instant; subtract two with {@link #minus}. */
  public record Io(long readBytes, long writeBytes, long readCalls, long deviceReads) {
    /** No I/O at all. */
    public static final Io NONE = new Io(0, 0, 0, 0);

    public Io minus(Io earlier) {
      return new Io(
          readBytes - earlier.readBytes,
          writeBytes - earlier.writeBytes,
          readCalls - earlier.readCalls,
          deviceReads - earlier.deviceReads);
    }
  }

  public static Io io() {
    long readBytes = 0;
    long writeBytes = 0;
    long syscr = 0;
    for (String line : lines(Path.of("/proc/self/io"))) {
      if (line.startsWith("read_bytes:")) {
        readBytes = value(line);
      } else if (line.startsWith("write_bytes:")) {
        writeBytes = value(line);
      } else if (line.startsWith("syscr:")) {
        syscr = value(line);
      }
    }
    return new Io(readBytes, writeBytes, syscr, deviceReads());
  }

  /** Peak resident set size (VmHWM) in bytes. */
  public static long peakRssBytes() {
    for (String line : lines(Path.of("/proc/self/status"))) {
      if (line.startsWith("VmHWM:")) {
        return value(line) * 1024;
      }
    }
    return 0;
  }

  /** Completed reads summed over whole disks (not partitions, loop or ram devices). */
  static long deviceReads() {
    long sum = 0;
    try (DirectoryStream<Path> devices = Files.newDirectoryStream(Path.of("/sys/block"))) {
      for (Path dev : devices) {
        String name = dev.getFileName().toString();
        if (name.startsWith("loop") || name.startsWith("ram") || name.startsWith("dm-")) {
          continue;
        }
        List<String> stat = lines(dev.resolve("stat"));
        if (!stat.isEmpty()) {
          sum += Long.parseLong(stat.get(0).trim().split("\\s+")[0]);
        }
      }
    } catch (IOException | RuntimeException e) {
      return 0;
    }
    return sum;
  }

  private static long value(String line) {
    String[] parts = line.trim().split("\\s+");
    return Long.parseLong(parts[1]);
  }

  private static List<String> lines(Path p) {
    try {
      return Files.readAllLines(p);
    } catch (IOException e) {
      return List.of();
    }
  }
}
