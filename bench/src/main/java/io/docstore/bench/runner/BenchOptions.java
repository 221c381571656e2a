package io.docstore.bench.runner;

import io.docstore.bench.engines.Engines;
import io.docstore.queue.QueueOptions;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The runner's command line. A size profile ({@code --quick}, the default, about three minutes for
 * everything; {@code --medium}; {@code --full}, the full sizes of docs/benchmarks.md) sets every size; single
 * options override it.
 */
final class BenchOptions {

  static final String USAGE = """
      usage: scripts/bench [--quick|--medium|--full] [--workload W[,W]] [--engine E[,E]]
                           [--keys N] [--batch N] [--memory-mb N] [--write-buffer-mb N] [--heap SIZE]
                           [--cold-limit-mb N] [--seed N] [--out DIR] [--data DIR]
                           [--bulk-docs N] [--bulk-threads N] [--block-bytes N]
                           [--mixed-docs N] [--mixed-seconds N] [--mixed-threads N] [--mixed-writes P[,P]]
        workloads: %s; on request only: %s
        engines:   %s (the bulk workload adds the reference %s)
        --block-bytes: the one data block size of every block-based engine (docstore's queue
                   blocks, RocksDB's and LevelDB's block_size), raw bytes before compression;
                   default docstore's queue default, %d
        mixed:     N documents loaded, then for each write percentage P (default 5,50) T threads
                   (default 2) of Zipf reads and put+flush writes for S seconds
                   (docs/benchmarks/mixed.md)
      """;

  String profile = "quick";
  List<String> workloads = new ArrayList<>(Workloads.ALL);
  List<String> engines = new ArrayList<>(Engines.ALL);
  long kvKeys;
  long jobs;
  long jobReads;
  long rwKeys;
  int rwSeconds;
  int writeRate;
  int coldSeconds;
  long probeBytes;
  double probeSeconds;
  int batch = 1000;
  long memoryBytes = 128L << 20;
  long writeBufferBytes = 64L << 20;
  /** The same for every engine: docs/benchmarks/engines.md, "Block size". */
  int blockBytes = QueueOptions.DEFAULT_BLOCK_SIZE;
  long coldLimitBytes = 512L << 20;
  String heap = "1g";
  long seed = 20261122L;
  Path out;
  Path data;
  long timeoutSeconds;
  long bulkDocs;
  int bulkThreads = Runtime.getRuntime().availableProcessors();
  /** Documents read back and verified after a bulk load (all of them when fewer). */
  long bulkVerifyReads = 100_000;
  long mixedDocs;
  int mixedSeconds;
  int mixedThreads = 2;
  List<Integer> mixedWritePercents = List.of(5, 50);

  static BenchOptions parse(String[] args, Path benchDir) {
    BenchOptions o = new BenchOptions();
    o.applyProfile(Arrays.asList(args).contains("--full") ? "full"
        : Arrays.asList(args).contains("--medium") ? "medium" : "quick");
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      switch (a) {
        case "--quick", "--medium", "--full" -> { }
        case "--workload" -> o.workloads = split(args[++i], Workloads.KNOWN);
        case "--engine" -> o.engines = split(args[++i], Engines.ALL, Engines.REFERENCES);
        case "--keys" -> o.kvKeys = Long.parseLong(args[++i]);
        case "--batch" -> o.batch = Integer.parseInt(args[++i]);
        case "--memory-mb" -> o.memoryBytes = Long.parseLong(args[++i]) << 20;
        case "--write-buffer-mb" -> o.writeBufferBytes = Long.parseLong(args[++i]) << 20;
        case "--cold-limit-mb" -> o.coldLimitBytes = Long.parseLong(args[++i]) << 20;
        case "--heap" -> o.heap = args[++i];
        case "--seed" -> o.seed = Long.parseLong(args[++i]);
        case "--out" -> o.out = Path.of(args[++i]);
        case "--data" -> o.data = Path.of(args[++i]);
        case "--bulk-docs" -> o.bulkDocs = Long.parseLong(args[++i]);
        case "--bulk-threads" -> o.bulkThreads = Integer.parseInt(args[++i]);
        case "--block-bytes" -> o.blockBytes = Integer.parseInt(args[++i]);
        case "--mixed-docs" -> o.mixedDocs = Long.parseLong(args[++i]);
        case "--mixed-seconds" -> o.mixedSeconds = Integer.parseInt(args[++i]);
        case "--mixed-threads" -> o.mixedThreads = Integer.parseInt(args[++i]);
        case "--mixed-writes" -> o.mixedWritePercents = percents(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + a + "\n" + usage());
      }
    }
    if (o.mixedThreads < 1 || o.mixedSeconds < 1) {
      throw new IllegalArgumentException("--mixed-threads and --mixed-seconds must be at least 1");
    }
    if (o.out == null) {
      String stamp = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC).format(Instant.now());
      o.out = benchDir.resolve("results").resolve(stamp + "-" + o.profile);
    }
    if (o.data == null) {
      o.data = benchDir.resolve("target").resolve("bench-data");
    }
    return o;
  }

  static String usage() {
    return String.format(USAGE, Workloads.ALL, Workloads.ON_REQUEST, Engines.ALL, Engines.REFERENCES,
        QueueOptions.DEFAULT_BLOCK_SIZE);
  }

  private void applyProfile(String name) {
    profile = name;
    switch (name) {
      case "full" -> set(10_000_000, 1_000_000, 2_000_000, 1_000_000, 60, 20_000, 300, 4L << 30, 10, 4 * 3600);
      case "medium" -> set(2_000_000, 200_000, 400_000, 200_000, 20, 20_000, 60, 1L << 30, 5, 3600);
      default -> set(200_000, 30_000, 60_000, 20_000, 3, 5_000, 3, 256L << 20, 2, 600);
    }
    bulkDocs = switch (name) {
      case "full" -> 5_000_000;
      case "medium" -> 500_000;
      default -> 50_000;
    };
    // mixed: the outside benchmark's 1,000,000 ~1 KB records at full size, the jobs workload's counts below.
    mixedDocs = switch (name) {
      case "full" -> 1_000_000;
      case "medium" -> 200_000;
      default -> 30_000;
    };
    mixedSeconds = switch (name) {
      case "full" -> 60;
      case "medium" -> 20;
      default -> 5;
    };
  }

  /** "5,50" -> [5, 50]: write percentages of the mixed workload, each 0..100. */
  static List<Integer> percents(String csv) {
    List<Integer> out = new ArrayList<>();
    for (String s : csv.split(",")) {
      if (s.isBlank()) {
        continue;
      }
      int p = Integer.parseInt(s.trim());
      if (p < 0 || p > 100) {
        throw new IllegalArgumentException("write percentage must be 0..100, got " + p);
      }
      out.add(p);
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("no write percentage in " + csv);
    }
    return List.copyOf(out);
  }

  private void set(long kvKeys, long jobs, long jobReads, long rwKeys, int rwSeconds, int writeRate, int coldSeconds,
      long probeBytes, double probeSeconds, long timeoutSeconds) {
    this.kvKeys = kvKeys;
    this.jobs = jobs;
    this.jobReads = jobReads;
    this.rwKeys = rwKeys;
    this.rwSeconds = rwSeconds;
    this.writeRate = writeRate;
    this.coldSeconds = coldSeconds;
    this.probeBytes = probeBytes;
    this.probeSeconds = probeSeconds;
    this.timeoutSeconds = timeoutSeconds;
  }

  @SafeVarargs
  private static List<String> split(String csv, List<String>... knownLists) {
    List<String> known = new ArrayList<>();
    for (List<String> k : knownLists) {
      known.addAll(k);
    }
    List<String> names = Arrays.stream(csv.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    for (String n : names) {
      if (!known.contains(n)) {
        throw new IllegalArgumentException("unknown name " + n + "; known: " + known);
      }
    }
    return new ArrayList<>(names);
  }

  /**
   * How long one engine JVM of {@code workload} may take: the profile's limit, or for mixed at least
   * each run and its wait for background work twice over plus ten minutes for the load.
   */
  long timeoutFor(String workload) {
    if (workload.equals("mixed")) {
      return Math.max(timeoutSeconds, 4L * mixedSeconds * mixedWritePercents.size() + 600);
    }
    return timeoutSeconds;
  }

  /** Keys, reads of one workload's engine JVM. */
  long keysFor(String workload) {
    return switch (workload) {
      case "jobs" -> jobs;
      case "readwhilewriting" -> rwKeys;
      case "bulk" -> bulkDocs;
      case "mixed" -> mixedDocs;
      default -> kvKeys;
    };
  }

  long readsFor(String workload) {
    return switch (workload) {
      case "jobs" -> jobReads;
      case "bulk" -> Math.min(bulkDocs, bulkVerifyReads);
      default -> keysFor(workload);
    };
  }
}
