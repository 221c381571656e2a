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
 * The runner end to end at a tiny size: real engine JVMs for every engine (Indeed lsmtree on its
 * own class path), every value verified, tables and result files written, data directories removed.
 */
class BenchMainTest {

  @TempDir Path tmp;

  private BenchOptions tiny(List<String> workloads, List<String> engines) {
    return tiny(tmp, workloads, engines);
  }

  /** The runner's options at a tiny size, results and data under {@code tmp}. */
  static BenchOptions tiny(Path tmp, List<String> workloads, List<String> engines) {
    BenchOptions o =
        BenchOptions.parse(
            new String[] {
              "--quick",
              "--out",
              tmp.resolve("out").toString(),
              "--data",
              tmp.resolve("data").toString(),
              "--memory-mb",
              "8",
              "--write-buffer-mb",
              "1",
              "--heap",
              "256m"
            },
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
    o.mixedDocs = 500;
    o.mixedSeconds = 1;
    o.mixedThreads = 2;
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
    assertThat(json)
        .contains(
            "\"engine\": \"lsmtree\"",
            "\"workload\": \"indeed-kv\"",
            "\"failure\": null",
            "Guava 16");
    assertThat(json)
        .as("one block size for every engine, docstore's queue default, reached each engine JVM")
        .contains(
            "\"block_bytes\": 8192",
            "docstore queue (block 8192 B raw",
            "; block 8192 B with data block hash index",
            "; block 8192 B; Snappy");
    assertThat(Files.readAllLines(outDir.resolve("results.csv")))
        .hasSize(1 + 2 * Engines.ALL.size());
    try (var s = Files.list(tmp.resolve("data"))) {
      assertThat(s.toList()).as("engine directories are removed").isEmpty();
    }
  }

  /**
   * The bulk workload on every engine at a tiny size (Indeed lsmtree included), plus the LZ4
   * reference.
   */
  @Test
  void everyEngineRunsTheBulkWorkload() throws Exception {
    BenchOptions o = tiny(List.of("bulk"), Engines.ALL);
    o.bulkDocs = 2000;
    o.bulkThreads = 2;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    boolean ok = BenchMain.run(o, new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
    String tables = out.toString(StandardCharsets.UTF_8);
    assertThat(ok).as(tables).isTrue();
    assertThat(tables)
        .contains(
            "### bulk",
            "phase `bulk`",
            "phase `verify`",
            "phase `verify-reopened`",
            "input MB/s",
            "| lz4 | ",
            "SstFileWriter",
            "rocksdb-blob: not run")
        .doesNotContain("FAILED");
    for (String engine : Engines.ALL) {
      if (!engine.equals("rocksdb-blob")) {
        assertThat(tables).contains("| " + engine + " | ");
      }
    }
    try (var s = Files.list(tmp.resolve("data"))) {
      assertThat(s.toList()).as("engine directories and the input are removed").isEmpty();
    }
  }

  /**
   * The mixed workload on every engine (each in its own JVM, two client threads): every read
   * verified, read and write latencies present and ordered, the write share near each mix's.
   */
  @Test
  void everyEngineRunsTheMixedWorkload() throws Exception {
    BenchOptions o = tiny(List.of("mixed"), Engines.ALL);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    boolean ok = BenchMain.run(o, new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
    String tables = out.toString(StandardCharsets.UTF_8);
    assertThat(ok).as(tables).isTrue();
    assertThat(tables)
        .contains(
            "### mixed",
            "phase `load`",
            "phase `w5`",
            "phase `w5-read`",
            "phase `w5-write`",
            "phase `w50`",
            "phase `w50-read`",
            "phase `w50-write`",
            "background work",
            "per mix",
            "| w50 | lsmtree | ")
        .doesNotContain("FAILED");
    List<String> csv = Files.readAllLines(tmp.resolve("out").resolve("results.csv"));
    List<String> header = List.of(csv.get(0).split(","));
    java.util.Map<String, java.util.Map<String, String>> rows = new java.util.HashMap<>();
    for (String line : csv.subList(1, csv.size())) {
      String[] cells = line.split(",", -1);
      java.util.Map<String, String> row = new java.util.HashMap<>();
      for (int i = 0; i < header.size(); i++) {
        row.put(header.get(i), cells[i]);
      }
      rows.put(row.get("engine") + "/" + row.get("phase"), row);
    }
    for (String engine : Engines.ALL) {
      assertThat(Long.parseLong(rows.get(engine + "/load").get("ops"))).isEqualTo(500);
      for (int w : new int[] {5, 50}) {
        String run = engine + "/w" + w;
        java.util.Map<String, String> all = rows.get(run);
        java.util.Map<String, String> reads = rows.get(run + "-read");
        java.util.Map<String, String> writes = rows.get(run + "-write");
        assertThat(all).as(run).isNotNull();
        long readOps = Long.parseLong(reads.get("ops"));
        long writeOps = Long.parseLong(writes.get("ops"));
        long ops = Long.parseLong(all.get("ops"));
        assertThat(ops).as(run).isEqualTo(readOps + writeOps).isGreaterThanOrEqualTo(200);
        assertThat(readOps).as(run + " reads").isPositive();
        assertThat(writeOps).as(run + " writes").isPositive();
        assertThat(reads.get("misses")).as(run + ": every read found its document").isEqualTo("0");
        assertThat(reads.get("wrong"))
            .as(run + ": every read was a written version")
            .isEqualTo("0");
        assertThat(all.get("misses") + all.get("wrong")).isEqualTo("00");
        double share = writeOps / (double) ops;
        double sd = Math.sqrt(w / 100.0 * (1 - w / 100.0) / ops);
        assertThat(Math.abs(share - w / 100.0))
            .as(run + " write share %.3f", share)
            .isLessThan(5 * sd + 0.01);
        for (java.util.Map<String, String> kind : List.of(reads, writes)) {
          double p50 = Double.parseDouble(kind.get("p50_us"));
          double p99 = Double.parseDouble(kind.get("p99_us"));
          double p999 = Double.parseDouble(kind.get("p999_us"));
          double max = Double.parseDouble(kind.get("max_us"));
          assertThat(p50)
              .as(run + " " + kind.get("phase") + " p50")
              .isGreaterThanOrEqualTo(0)
              .isLessThanOrEqualTo(p99);
          assertThat(p99)
              .as(run + " " + kind.get("phase") + " p99")
              .isPositive()
              .isLessThanOrEqualTo(p999);
          assertThat(p999)
              .as(run + " " + kind.get("phase") + " p99.9")
              .isLessThanOrEqualTo(max)
              .isLessThan(10_000_000);
          assertThat(Long.parseLong(kind.get("ops_per_s")))
              .as(run + " " + kind.get("phase") + " ops/s")
              .isPositive();
        }
      }
    }
    String json = Files.readString(tmp.resolve("out").resolve("results.json"));
    assertThat(json)
        .contains(
            "\"workload\": \"mixed\"",
            "\"mixed_threads\": 2",
            "\"mixed_docs\": 500",
            "\"phase\": \"w50-write\"");
  }

  @Test
  void mixedRunsOnlyWhenNamed() {
    assertThat(BenchOptions.parse(new String[0], tmp).workloads).doesNotContain("mixed");
    BenchOptions o =
        BenchOptions.parse(
            new String[] {
              "--workload",
              "mixed",
              "--mixed-threads",
              "4",
              "--mixed-writes",
              "1,95",
              "--mixed-seconds",
              "7",
              "--full"
            },
            tmp);
    assertThat(o.workloads).containsExactly("mixed");
    assertThat(o.mixedThreads).isEqualTo(4);
    assertThat(o.mixedWritePercents).containsExactly(1, 95);
    assertThat(o.mixedSeconds).isEqualTo(7);
    assertThat(o.keysFor("mixed")).isEqualTo(1_000_000);
    assertThat(BenchOptions.parse(new String[0], tmp).mixedWritePercents).containsExactly(5, 50);
    assertThat(BenchOptions.parse(new String[0], tmp).mixedThreads).isEqualTo(2);
    assertThat(BenchOptions.usage()).contains("--mixed-writes", "on request only: [mixed, churn]");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> io.docstore.bench.workloads.MixedWorkload.writePercents("5,101"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void optionsGivenOverrideTheProfileWhereverTheyStand() {
    for (String[] args :
        List.of(
            new String[] {"--keys", "7", "--full", "--mixed-seconds=9"},
            new String[] {"--full", "--keys=7", "--mixed-seconds", "9"})) {
      BenchOptions o = BenchOptions.parse(args, tmp);
      assertThat(o.profile).isEqualTo("full");
      assertThat(o.kvKeys).isEqualTo(7);
      assertThat(o.mixedSeconds).isEqualTo(9);
      assertThat(o.bulkDocs).as("the profile's, not given").isEqualTo(5_000_000);
      assertThat(o.out.getFileName().toString()).endsWith("-full");
    }
    BenchOptions quick =
        BenchOptions.parse(new String[] {"--memory-mb", "8", "--workload", "jobs,bulk"}, tmp);
    assertThat(quick.profile).isEqualTo("quick");
    assertThat(quick.kvKeys).isEqualTo(200_000);
    assertThat(quick.memoryBytes).isEqualTo(8L << 20);
    assertThat(quick.workloads).containsExactly("jobs", "bulk");
    assertThat(quick.engines)
        .as("every engine, and churn's docstore-nogc")
        .containsExactly(
            "docstore", "rocksdb", "rocksdb-blob", "leveldb", "lmdb", "lsmtree", "docstore-nogc");
    assertThat(quick.data).isEqualTo(tmp.resolve("target").resolve("bench-data"));
    assertThat(BenchOptions.parse(new String[] {"--help"}, tmp).help).isTrue();
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> BenchOptions.parse(new String[] {"--bogus"}, tmp))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--bogus")
        .hasMessageContaining("Usage:");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> BenchOptions.parse(new String[] {"--engine", "nope"}, tmp))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown name nope");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> BenchOptions.parse(new String[] {"--mixed-threads", "0"}, tmp))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 1");
  }

  @Test
  void blockSizeIsOneOptionForEveryEngine() {
    assertThat(BenchOptions.parse(new String[0], tmp).blockBytes)
        .isEqualTo(io.docstore.queue.QueueOptions.DEFAULT_BLOCK_SIZE)
        .isEqualTo(8192);
    assertThat(BenchOptions.parse(new String[] {"--block-bytes", "16384"}, tmp).blockBytes)
        .isEqualTo(16384);
    assertThat(BenchOptions.usage()).contains("--block-bytes", "8192");
  }

  @Test
  void jobsColdAndReadWhileWritingWorkloadsRunOnDocstore() throws Exception {
    BenchOptions o =
        tiny(List.of("jobs", "indeed-kv-512m", "readwhilewriting"), List.of("docstore"));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    boolean ok = BenchMain.run(o, new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
    String tables = out.toString(StandardCharsets.UTF_8);
    assertThat(ok).as(tables).isTrue();
    assertThat(tables)
        .contains(
            "### jobs",
            "### indeed-kv-512m",
            "random 4 KiB reads/s at QD1",
            "pages evicted",
            "### readwhilewriting",
            "phase `read-alone`",
            "phase `read-under-writes`",
            "phase `writer`",
            "phase `reads-during-flush-or-compaction`",
            "phase `reads-without-background-work`");
    Path outDir = o.out;
    assertThat(Files.readString(outDir.resolve("results.json")))
        .containsPattern("\"p99_us_per_s\": \\[\\d+\\.\\d+\\]");
    for (String png :
        List.of(
            "latency-jobs.png",
            "latency-readwhilewriting.png",
            "readwhilewriting-read-under-writes-p99-over-time.png",
            "readwhilewriting-read-alone-p99-over-time.png")) {
      assertThat(outDir.resolve(png)).as(png).isNotEmptyFile();
    }
    assertThat(outDir.resolve("ratios-readwhilewriting.png"))
        .as("docstore alone: no ratios")
        .doesNotExist();
  }
}
