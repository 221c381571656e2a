package io.docstore.bench.runner;

import io.docstore.bench.engines.Engines;
import io.docstore.bench.workloads.MixedWorkload;
import io.docstore.queue.QueueOptions;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The runner's command line (picocli). A size profile ({@code --quick}, the default, about three
 * minutes for everything; {@code --medium}; {@code --full}, the full sizes of docs/benchmarks.md)
 * sets every size; single options override it.
 */
@Command(
    name = "scripts/bench",
    sortOptions = false,
    sortSynopsis = false,
    usageHelpWidth = 100,
    description = {
      "Every selected workload on every selected engine, each engine in its own JVM on a fresh"
          + " directory; a table per workload, and tables.md, results.json, results.csv and charts in the"
          + " output directory. A size profile sets every size; single options override it."
    })
final class BenchOptions {

  @Option(
      names = "--quick",
      order = 1,
      description = "size profile: small sizes, about three minutes for everything (the default)")
  boolean quick;

  @Option(names = "--medium", order = 2, description = "size profile: medium sizes")
  boolean medium;

  @Option(
      names = "--full",
      order = 3,
      description =
          "size profile: the full sizes of docs/benchmarks.md (hours); wins over --medium")
  boolean full;

  @Option(
      names = {"-h", "--help"},
      order = 99,
      usageHelp = true,
      description = "this help")
  boolean help;

  /** The selected profile's name: quick, medium or full. */
  String profile = "quick";

  List<String> workloads = new ArrayList<>(Workloads.ALL);

  /** Every engine, and churn's docstore-nogc. */
  List<String> engines = new ArrayList<>(Engines.ALL);

  BenchOptions() {
    engines.add(Engines.DOCSTORE_NOGC);
  }

  long kvKeys;

  long jobs;
  long jobReads;
  long rwKeys;
  int rwSeconds;
  int writeRate;
  int coldSeconds;
  long probeBytes;
  double probeSeconds;

  @Option(
      names = "--batch",
      order = 7,
      paramLabel = "N",
      description = "puts per flush() of every engine (default: ${DEFAULT-VALUE})")
  int batch = 1000;

  long memoryBytes = 128L << 20;
  long writeBufferBytes = 64L << 20;

  /** The same for every engine: docs/benchmarks/engines.md, "Block size". */
  @Option(
      names = "--block-bytes",
      order = 10,
      paramLabel = "N",
      description = {
        "the one data block size of every block-based engine"
            + " (docstore's queue blocks, RocksDB's and LevelDB's block_size), raw bytes before compression;"
            + " default docstore's queue default, ${DEFAULT-VALUE}"
      })
  int blockBytes = QueueOptions.DEFAULT_BLOCK_SIZE;

  long coldLimitBytes = 512L << 20;

  @Option(
      names = "--heap",
      order = 11,
      paramLabel = "SIZE",
      description = "-Xmx of every engine JVM (default: ${DEFAULT-VALUE})")
  String heap = "1g";

  @Option(
      names = "--seed",
      order = 13,
      paramLabel = "N",
      description = "seed of every generated key, value and document (default: ${DEFAULT-VALUE})")
  long seed = 20261122L;

  @Option(
      names = "--out",
      order = 14,
      paramLabel = "DIR",
      description = "result files (default: bench/results/<time>-<profile>/)")
  Path out;

  @Option(
      names = "--data",
      order = 15,
      paramLabel = "DIR",
      description =
          "engine data directories, each deleted after its run (default: bench/target/bench-data/)")
  Path data;

  long timeoutSeconds;

  @Option(
      names = "--bulk-docs",
      order = 16,
      paramLabel = "N",
      description = "documents of the bulk workload (default: the profile's)")
  long bulkDocs;

  @Option(
      names = "--bulk-threads",
      order = 17,
      paramLabel = "N",
      description =
          "threads of every engine's bulk load (default: the cores, ${DEFAULT-VALUE} here)")
  int bulkThreads = Runtime.getRuntime().availableProcessors();

  /** Documents read back and verified after a bulk load (all of them when fewer). */
  long bulkVerifyReads = 100_000;

  @Option(
      names = "--mixed-docs",
      order = 18,
      paramLabel = "N",
      description = "mixed: documents loaded first (default: the profile's)")
  long mixedDocs;

  @Option(
      names = "--mixed-seconds",
      order = 19,
      paramLabel = "N",
      description = "mixed: seconds of each write percentage (default: the profile's)")
  int mixedSeconds;

  @Option(
      names = "--mixed-threads",
      order = 20,
      paramLabel = "N",
      description = "mixed: threads of Zipf reads and put+flush writes (default: ${DEFAULT-VALUE})")
  int mixedThreads = 2;

  List<Integer> mixedWritePercents = List.of(5, 50);

  @Mixin ChurnOptions churn = new ChurnOptions();

  @Spec CommandSpec spec;

  @Option(
      names = "--workload",
      order = 4,
      paramLabel = "W[,W]",
      description = "workloads (default: all but those run on request only; see below)")
  void workloads(String csv) {
    workloads = invalidAsParameter(() -> split(csv, Workloads.KNOWN));
  }

  @Option(
      names = "--engine",
      order = 5,
      paramLabel = "E[,E]",
      description =
          "engines, the bulk workload's reference and churn's docstore-nogc (default: every"
              + " engine)")
  void engines(String csv) {
    engines =
        invalidAsParameter(
            () -> split(csv, Engines.ALL, Engines.REFERENCES, List.of(Engines.DOCSTORE_NOGC)));
  }

  @Option(
      names = "--keys",
      order = 6,
      paramLabel = "N",
      description =
          "keys of the indeed-kv workloads and live documents of churn (default: the profile's)")
  void keys(long n) {
    kvKeys = n;
    churn.keys = n;
  }

  @Option(
      names = "--memory-mb",
      order = 8,
      paramLabel = "N",
      description = "each engine's cache budget in MiB (default: 128)")
  void memoryMb(long mb) {
    memoryBytes = mb << 20;
  }

  @Option(
      names = "--write-buffer-mb",
      order = 9,
      paramLabel = "N",
      description = "each engine's write buffer in MiB (default: 64)")
  void writeBufferMb(long mb) {
    writeBufferBytes = mb << 20;
  }

  @Option(
      names = "--cold-limit-mb",
      order = 12,
      paramLabel = "N",
      description = "indeed-kv-512m: the memory limit of the cold reads in MiB (default: 512)")
  void coldLimitMb(long mb) {
    coldLimitBytes = mb << 20;
  }

  @Option(
      names = "--mixed-writes",
      order = 21,
      paramLabel = "P[,P]",
      description = "mixed: the write percentages, one run each (default: 5,50)")
  void mixedWrites(String csv) {
    mixedWritePercents = invalidAsParameter(() -> MixedWorkload.writePercents(csv));
  }

  /**
   * Parses a command line: the profile's sizes first, then the options given over them. (Parsed
   * twice: once to find the profile, then into options that start from the profile's sizes.)
   */
  static BenchOptions parse(String[] args, Path benchDir) {
    BenchOptions o = new BenchOptions();
    o.applyProfile(parse(new BenchOptions(), args).profileName());
    parse(o, args);
    if (o.mixedThreads < 1 || o.mixedSeconds < 1) {
      throw new IllegalArgumentException("--mixed-threads and --mixed-seconds must be at least 1");
    }
    o.churn.check();
    if (o.out == null) {
      String stamp =
          DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
              .withZone(ZoneOffset.UTC)
              .format(Instant.now());
      o.out = benchDir.resolve("results").resolve(stamp + "-" + o.profile);
    }
    if (o.data == null) {
      o.data = benchDir.resolve("target").resolve("bench-data");
    }
    return o;
  }

  private static BenchOptions parse(BenchOptions o, String[] args) {
    try {
      commandLine(o).parseArgs(args);
    } catch (UnmatchedArgumentException e) {
      throw new IllegalArgumentException(e.getMessage() + "\n" + usage(), e);
    } catch (ParameterException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
    return o;
  }

  private String profileName() {
    return full ? "full" : medium ? "medium" : "quick";
  }

  private static CommandLine commandLine(BenchOptions o) {
    CommandLine cl = new CommandLine(o);
    cl.getCommandSpec()
        .usageMessage()
        .footer(
            String.format(
                """
        %nworkloads: %s;
                   on request only: %s
        engines:   %s;
                   the bulk workload adds the reference %s
        mixed:     N documents loaded, then for each write percentage P, T threads of Zipf reads
                   and put+flush writes for S seconds (docs/benchmarks/mixed.md)
        churn:     about --keys live job postings, --churn-updates updates over 90 simulated days
                   (30-day expiry) at --churn-rate updates/s, Zipf reads meanwhile
                   (docs/benchmarks/churn.md); engines:
                   %s
        """,
                Workloads.ALL,
                Workloads.ON_REQUEST,
                Engines.ALL,
                Engines.REFERENCES,
                Engines.CHURN));
    return cl;
  }

  static String usage() {
    return commandLine(new BenchOptions()).getUsageMessage(CommandLine.Help.Ansi.OFF);
  }

  /**
   * An {@link IllegalArgumentException} of a value check, reported as picocli reports a bad value.
   */
  private <T> T invalidAsParameter(Supplier<T> check) {
    try {
      return check.get();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage(), e);
    }
  }

  private void applyProfile(String name) {
    Profile p = Profile.named(name);
    profile = p.name();
    kvKeys = p.kvKeys();
    jobs = p.jobs();
    jobReads = p.jobReads();
    rwKeys = p.rwKeys();
    rwSeconds = p.rwSeconds();
    writeRate = p.writeRate();
    coldSeconds = p.coldSeconds();
    probeBytes = p.probeBytes();
    probeSeconds = p.probeSeconds();
    timeoutSeconds = p.timeoutSeconds();
    bulkDocs = p.bulkDocs();
    mixedDocs = p.mixedDocs();
    mixedSeconds = p.mixedSeconds();
    churn.keys = p.churnKeys();
    churn.updates = p.churnUpdates();
  }

  @SafeVarargs
  private static List<String> split(String csv, List<String>... knownLists) {
    List<String> known = new ArrayList<>();
    for (List<String> k : knownLists) {
      known.addAll(k);
    }
    List<String> names =
        Arrays.stream(csv.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    for (String n : names) {
      if (!known.contains(n)) {
        throw new IllegalArgumentException("unknown name " + n + "; known: " + known);
      }
    }
    return new ArrayList<>(names);
  }

  /**
   * How long one engine JVM of {@code workload} may take: the profile's limit, or for mixed at
   * least each run and its wait for background work twice over plus ten minutes for the load, for
   * churn at least its run twice over plus ten minutes.
   */
  long timeoutFor(String workload) {
    if (workload.equals("mixed")) {
      return Math.max(timeoutSeconds, 4L * mixedSeconds * mixedWritePercents.size() + 600);
    }
    if (workload.equals("churn")) {
      return Math.max(timeoutSeconds, 2 * churn.runSeconds() + 600);
    }
    return timeoutSeconds;
  }

  /** The write buffer of one workload's engine JVMs: churn's is scaled to its size. */
  long writeBufferFor(String workload) {
    return workload.equals("churn") ? churn.writeBuffer(writeBufferBytes) : writeBufferBytes;
  }

  /** Keys, reads of one workload's engine JVM. */
  long keysFor(String workload) {
    return switch (workload) {
      case "jobs" -> jobs;
      case "readwhilewriting" -> rwKeys;
      case "bulk" -> bulkDocs;
      case "mixed" -> mixedDocs;
      case "churn" -> churn.keys;
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
