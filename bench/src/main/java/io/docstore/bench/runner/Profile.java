package io.docstore.bench.runner;

/**
 * The sizes of a size profile ({@code --quick}, {@code --medium}, {@code --full}): every size of
 * every workload (indeed-kv's keys; jobs' documents and reads; readwhilewriting's documents, phase
 * length and write rate; the cap of indeed-kv-512m's cold reads and the disk probe before them;
 * bulk's documents; mixed's documents and run length; churn's live documents and updates) and how
 * long one engine JVM may take. Single options of {@link BenchOptions} override them.
 */
record Profile(
    String name,
    long kvKeys,
    long jobs,
    long jobReads,
    long rwKeys,
    int rwSeconds,
    int writeRate,
    int coldSeconds,
    long probeBytes,
    double probeSeconds,
    long timeoutSeconds,
    long bulkDocs,
    long mixedDocs,
    int mixedSeconds,
    long churnKeys,
    long churnUpdates) {

  /**
   * The full sizes of docs/benchmarks.md (hours); mixed: the outside benchmark's 1,000,000 ~1 KB
   * records; churn: the 1,000,000 live documents and 10,000,000 updates.
   */
  static final Profile FULL =
      new Profile(
          "full",
          10_000_000,
          1_000_000,
          2_000_000,
          1_000_000,
          60,
          20_000,
          300,
          4L << 30,
          10,
          4 * 3600,
          5_000_000,
          1_000_000,
          60,
          1_000_000,
          10_000_000);

  static final Profile MEDIUM =
      new Profile(
          "medium", 2_000_000, 200_000, 400_000, 200_000, 20, 20_000, 60, 1L << 30, 5, 3600,
          500_000, 200_000, 20, 300_000, 3_000_000);

  /**
   * About three minutes for everything run by default; mixed: the jobs workload's counts; churn (on
   * request): a tenth of the full size, 100 s per engine at the default rate.
   */
  static final Profile QUICK =
      new Profile(
          "quick",
          200_000,
          30_000,
          60_000,
          20_000,
          3,
          5_000,
          3,
          256L << 20,
          2,
          600,
          50_000,
          30_000,
          5,
          100_000,
          1_000_000);

  static Profile named(String name) {
    return switch (name) {
      case "full" -> FULL;
      case "medium" -> MEDIUM;
      default -> QUICK;
    };
  }
}
