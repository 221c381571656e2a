package io.docstore.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MappedFileTest {

  @TempDir Path dir;

  private static final long C = MappedFile.CHUNK_SIZE;
  private Path file;

  /**
   * A sparse file of one whole chunk and 10,000 bytes more, with marks that identify their offsets.
   */
  @BeforeEach
  void sparseFile() throws IOException {
    assumeTrue(MappedFile.supported(), "mapped reads need Linux with native access");
    file = dir.resolve("data");
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.setLength(C + 10_000);
      for (long at : new long[] {0, 4096, C - 8, C, C + 9_992}) {
        f.seek(at);
        f.writeLong(at * 31 + 7);
      }
    }
  }

  private static long mark(ByteBuffer chunk, long offset) {
    return chunk.getLong(MappedFile.indexInChunk(offset));
  }

  @Test
  void mapsWholeChunksBelowTheStableEndAndReadsTheFilesBytes() throws IOException {
    try (FileChannel ch = FileChannel.open(file)) {
      MappedFile m = new MappedFile(ch, file, ByteOrder.BIG_ENDIAN);
      ByteBuffer first = m.chunk(4096, 8, C + 10_000, false);
      assertThat(first).isNotNull();
      assertThat(mark(first, 4096)).isEqualTo(4096 * 31 + 7);
      assertThat(mark(first, C - 8)).isEqualTo((C - 8) * 31 + 7);
      assertThat(m.chunk(0, 8, C + 10_000, false)).as("one mapping per chunk").isSameAs(first);
    }
  }

  @Test
  void refusesRangesItCannotMapSafely() throws IOException {
    try (FileChannel ch = FileChannel.open(file)) {
      MappedFile m = new MappedFile(ch, file, ByteOrder.BIG_ENDIAN);
      assertThat(m.chunk(C - 4, 8, C + 10_000, true)).as("straddles two chunks").isNull();
      assertThat(m.chunk(C, 8, C + 10_000, false))
          .as("the last chunk is not whole and the end may still grow")
          .isNull();
      assertThat(m.chunk(4096, 8, 4100, true)).as("reaches past the stable end").isNull();
      assertThat(m.chunk(-1, 8, C, true)).isNull();
      ByteBuffer tail = m.chunk(C + 9_992, 8, C + 10_000, true);
      assertThat(tail).as("a final end maps the short last chunk").isNotNull();
      assertThat(tail.capacity()).isEqualTo(10_000);
      assertThat(mark(tail, C)).isEqualTo(C * 31 + 7);
      assertThat(mark(tail, C + 9_992)).isEqualTo((C + 9_992) * 31 + 7);
    }
  }

  @Test
  void everyChunkIsAdvisedRandomSoAFaultReadsOnePage() throws IOException {
    try (FileChannel ch = FileChannel.open(file)) {
      MappedFile m = new MappedFile(ch, file, ByteOrder.BIG_ENDIAN);
      assertThat(m.chunk(0, 8, C + 10_000, true)).isNotNull();
      assertThat(m.chunk(C, 8, C + 10_000, true)).isNotNull();
      // The kernel shows MADV_RANDOM as the "rr" flag of each mapping of the file.
      List<String> flags = vmFlagsOf(file);
      assertThat(flags).hasSize(2).allSatisfy(f -> assertThat(f.split(" ")).contains("rr"));
    }
  }

  @Test
  void unmapNowReleasesEveryChunkAndMapsNothingMore() throws IOException {
    try (FileChannel ch = FileChannel.open(file)) {
      MappedFile m = new MappedFile(ch, file, ByteOrder.BIG_ENDIAN);
      assertThat(m.chunk(0, 8, C + 10_000, true)).isNotNull();
      assertThat(vmFlagsOf(file)).hasSize(1);
      m.unmapNow();
      assertThat(vmFlagsOf(file)).as("no mapping of the file is left").isEmpty();
      assertThat(m.chunk(0, 8, C + 10_000, true)).isNull();
    }
  }

  @Test
  void threadMajorFaultsIsTheKernelsCountForThisThread() throws IOException {
    // Field 12 of /proc/thread-self/stat is majflt; the comm field (2) may hold spaces, so count
    // from the closing parenthesis.
    for (int attempt = 0; ; attempt++) {
      long before = MappedFile.threadMajorFaults();
      String stat = Files.readString(Path.of("/proc/thread-self/stat"));
      long after = MappedFile.threadMajorFaults();
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      long kernel = Long.parseLong(f[12 - 3]);
      if (before == after || attempt == 5) {
        assertThat(before).isGreaterThanOrEqualTo(0).isEqualTo(kernel);
        return;
      }
    }
  }

  /** The VmFlags line of every mapping of {@code path} in this process. */
  private static List<String> vmFlagsOf(Path path) throws IOException {
    List<String> lines = Files.readAllLines(Path.of("/proc/self/smaps"));
    String name = path.toRealPath().toString();
    List<String> flags = new java.util.ArrayList<>();
    boolean inside = false;
    for (String line : lines) {
      if (line.matches("^[0-9a-f]+-[0-9a-f]+ .*")) {
        inside = line.endsWith(" " + name);
      } else if (inside && line.startsWith("VmFlags:")) {
        flags.add(line.substring("VmFlags:".length()).trim());
      }
    }
    return flags;
  }
}
