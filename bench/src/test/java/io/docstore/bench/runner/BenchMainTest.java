package io.docstore.bench.runner;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.bench.engines.Engines;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runner end to end at a tiny size: real engine JVMs for every engine (Indeed lsmtree on its own
 * class path), every value verified, tables and result files written, data directories removed.
 */
class BenchMainTest {

  @TempDir Path tmp;

  private BenchOptions tiny(List<String> workloads, List<String> engines) {
    BenchOptions o = BenchOptions.parse(new String[] {"--quick", "--out", tmp.resolve("out").toString(),
        "--data", tmp.resolve("data").toString(), "--memory-mb", "8", "--write-buffer-mb", "1", "--heap", "256m"},
        tmp);
    o.workloads = workloads;
    o.engines = engines;
    o.kvKeys = 3000;
    o.jobs = 600;
    o.jobReads = 1000;
    o.rwKeys = 500;
    o.rwSeconds = 1;
    o.writeRate = 500;
    o.coldSeconds = 1;
    o.probeBytes = 4L << 20;
    o.probeSeconds = 0.2;
    o.batch = 100;
    o.timeoutSeconds = 120;
    return o;
  }

  @Test
  void everyEngineRunsTheKvWorkloadInItsOwnJvm() throws Exception {
    BenchOptions o = tiny(List.of("indeed-kv"), Engines.ALL);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    boolean ok = BenchMain.run(o, new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
    String tables = out.toString(StandardCharsets.UTF_8);
    assertThat(ok).as(tables).isTrue();
    assertThat(tables).contains("### indeed-kv", "phase `write`", "phase `read`");
    for (String engine : Engines.ALL) {
      assertThat(tables).contains("| " + engine + " | ");
    }
    assertThat(tables).doesNotContain("FAILED");
    Path outDir = tmp.resolve("out");
    assertThat(Files.readString(outDir.resolve("tables.md"))).isEqualTo(tables);
    String json = Files.readString(outDir.resolve("results.json"));
    assertThat(json).contains("\"engine\": \"lsmtree\"", "\"workload\": \"indeed-kv\"", "\"failure\": null",
        "Guava 16");
    assertThat(json).as("one block size for every engine, docstore's queue default, reached each engine JVM")
        .contains("\"block_bytes\": 8192", "docstore queue (block 8192 B raw", "; block 8192 B with data block hash index",
            "; block 8192 B; Snappy");
    assertThat(Files.readAllLines(outDir.resolve("results.csv"))).hasSize(1 + 2 * Engines.ALL.size());
    try (var s = Files.list(tmp.resolve("data"))) {
      assertThat(s.toList()).as("engine directories are removed").isEmpty();
    }
  }

  /** The bulk workload on every engine at a tiny size (Indeed lsmtree included), plus the LZ4 reference. */
  @Test
  void everyEngineRunsTheBulkWorkload() throws Exception {
    BenchOptions o = tiny(List.of("bulk"), Engines.ALL);
    o.bulkDocs = 2000;
    o.bulkThreads = 2;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    boolean ok = BenchMain.run(o, new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
    String tables = out.toString(StandardCharsets.UTF_8);
    assertThat(ok).as(tables).isTrue();
    assertThat(tables).contains("### bulk", "phase `bulk`", "phase `verify`", "phase `verify-reopened`", "input MB/s", "| lz4 | ",
        "SstFileWriter", "rocksdb-blob: not run").doesNotContain("FAILED");
    for (String engine : Engines.ALL) {
      if (!engine.equals("rocksdb-blob")) {
        assertThat(tables).contains("| " + engine + " | ");
      }
    }
    try (var s = Files.list(tmp.resolve("data"))) {
      assertThat(s.toList()).as("engine directories and the input are removed").isEmpty();
    }
  }

  @Test
  void blockSizeIsOneOptionForEveryEngine() {
    assertThat(BenchOptions.parse(new String[0], tmp).blockBytes)
        .isEqualTo(io.docstore.queue.QueueOptions.DEFAULT_BLOCK_SIZE).isEqualTo(8192);
    assertThat(BenchOptions.parse(new String[] {"--block-bytes", "16384"}, tmp).blockBytes).isEqualTo(16384);
    assertThat(BenchOptions.usage()).contains("--block-bytes", "8192");
  }

  @Test
  void jobsColdAndReadWhileWritingWorkloadsRunOnDocstore() throws Exception {
    BenchOptions o = tiny(List.of("jobs", "indeed-kv-512m", "readwhilewriting"), List.of("docstore"));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    boolean ok = BenchMain.run(o, new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
    String tables = out.toString(StandardCharsets.UTF_8);
    assertThat(ok).as(tables).isTrue();
    assertThat(tables).contains("### jobs", "### indeed-kv-512m", "random 4 KiB reads/s at QD1", "pages evicted",
        "### readwhilewriting", "phase `read-alone`", "phase `read-under-writes`", "phase `writer`",
        "phase `reads-during-flush-or-compaction`", "phase `reads-without-background-work`");
  }
}
