package io.docstore.bench.runner;

import com.sun.nio.file.ExtendedOpenOption;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.SplittableRandom;

/**
 * The disk's own random 4 KiB read rate at queue depth 1: writes a file of random bytes, then reads
 * random aligned 4 KiB blocks of it with O_DIRECT (no page cache, no read-ahead) one at a time.
 * That is the physical limit of a cold single-threaded lookup that needs one read.
 */
final class DiskProbe {

  private static final int BLOCK = 4096;

  private DiskProbe() {}

  /** Reads per second; the file is deleted afterwards. */
  static double randomReadsPerSecond(Path dir, long fileBytes, double seconds) throws IOException {
    Files.createDirectories(dir);
    Path file = dir.resolve("disk-probe.bin");
    long blocks = fileBytes / BLOCK;
    try {
      writeRandom(file, blocks);
      ByteBuffer buf = ByteBuffer.allocateDirect(BLOCK * 2).alignedSlice(BLOCK);
      SplittableRandom random = new SplittableRandom(42);
      try (FileChannel ch =
          FileChannel.open(file, StandardOpenOption.READ, ExtendedOpenOption.DIRECT)) {
        long start = System.nanoTime();
        long end = start + (long) (seconds * 1e9);
        long reads = 0;
        long now;
        while ((now = System.nanoTime()) < end) {
          buf.clear();
          ch.read(buf, random.nextLong(blocks) * BLOCK);
          reads++;
        }
        return reads * 1e9 / (now - start);
      }
    } finally {
      Files.deleteIfExists(file);
    }
  }

  private static void writeRandom(Path file, long blocks) throws IOException {
    ByteBuffer chunk = ByteBuffer.allocate(1 << 20);
    new SplittableRandom(7).nextBytes(chunk.array());
    long bytes = blocks * BLOCK;
    try (FileChannel ch =
        FileChannel.open(
            file,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      for (long written = 0; written < bytes; written += chunk.capacity()) {
        chunk.clear();
        chunk.limit((int) Math.min(chunk.capacity(), bytes - written));
        while (chunk.hasRemaining()) {
          ch.write(chunk);
        }
      }
      ch.force(true);
    }
  }
}
