package io.docstore.bench.engines;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.FlushOptions;

/**
 * What RocksDB itself says is in effect, not what the settings line claims: the table options it
 * persisted in its OPTIONS file, the bytes its rate limiter let through, and the CPU priority of
 * its flush and compaction threads after they ran.
 */
class RocksDbEngineTest {

  @TempDir Path dir;

  @Test
  void runsWithThePointLookupSettingsAndPacedLowPriorityBackgroundWork() throws Exception {
    EngineSettings settings = new EngineSettings(dir, 8 << 20, 1 << 20, 8192);
    try (RocksDbEngine e = new RocksDbEngine(settings, false)) {
      for (int i = 0; i < 20_000; i++) {
        e.put(CrashWriter.key(i), CrashWriter.value(i));
        if (i % 1000 == 999) {
          e.flush();
        }
      }
      e.flush();
      try (FlushOptions f = new FlushOptions().setWaitForFlush(true)) {
        e.db().flush(f);
      }
      e.db().compactRange();
      assertThat(e.get(CrashWriter.key(12_345))).isEqualTo(CrashWriter.value(12_345));

      String table = latestOptionsFile();
      assertThat(table)
          .contains(
              "cache_index_and_filter_blocks=true",
              "cache_index_and_filter_blocks_with_high_priority=true",
              "pin_l0_filter_and_index_blocks_in_cache=true",
              "data_block_index_type=kDataBlockBinaryAndHash",
              "format_version=" + RocksDbEngine.FORMAT_VERSION,
              "block_size=8192",
              "optimize_filters_for_hits=false",
              "bloomfilter:" + RocksDbEngine.BLOOM_BITS_PER_KEY);
      assertThat(e.rateLimiter().getTotalBytesThrough())
          .as("flush and compaction writes went through the rate limiter")
          .isPositive();

      if (RocksDbEngine.lowerBackgroundPriority()
          && Files.isDirectory(Path.of("/proc/self/task"))) {
        List<String> pool = rocksDbPoolThreads();
        assertThat(pool)
            .as("RocksDB's flush (high) and compaction (low) threads ran")
            .anyMatch(t -> t.startsWith("rocksdb:high"))
            .anyMatch(t -> t.startsWith("rocksdb:low"));
        assertThat(pool)
            .as("thread name and nice value of RocksDB's pool threads")
            .allMatch(t -> t.endsWith(" nice=19"));
      }
    }
  }

  private String latestOptionsFile() throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      Path newest =
          s.filter(p -> p.getFileName().toString().startsWith("OPTIONS-"))
              .max((a, b) -> a.getFileName().toString().compareTo(b.getFileName().toString()))
              .orElseThrow();
      return Files.readString(newest);
    }
  }

  /** "name nice=N" of every thread of this JVM whose name is one of RocksDB's pools. */
  private static List<String> rocksDbPoolThreads() throws IOException {
    List<String> out = new ArrayList<>();
    try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
      for (Path t : tasks.toList()) {
        String comm;
        String stat;
        try {
          comm = Files.readString(t.resolve("comm")).trim();
          stat = Files.readString(t.resolve("stat"));
        } catch (IOException gone) {
          continue;
        }
        if (comm.startsWith("rocksdb:high") || comm.startsWith("rocksdb:low")) {
          // Fields after "(comm) ": state is field 3, nice field 19.
          String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          out.add(comm + " nice=" + f[19 - 3]);
        }
      }
    }
    return out;
  }
}
