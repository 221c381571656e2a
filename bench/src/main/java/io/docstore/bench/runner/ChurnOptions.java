package io.docstore.bench.runner;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The churn workload's part of the runner's command line (docs/benchmarks/churn.md). */
final class ChurnOptions {

  /**
   * The full size's live documents. Below it, churn's write buffer (for every engine; also the size
   * of docstore's queue segments and BlobDB's blob files) is the shared one (64 MiB by default)
   * scaled down in proportion, so that a smaller run keeps the full run's proportions of buffers
   * and files to data.
   */
  static final long FULL_KEYS = 1_000_000;

  /** Live documents (after the first 30 simulated days): the profile's, or {@code --keys}. */
  long keys;

  @Option(
      names = "--churn-updates",
      order = 22,
      paramLabel = "N",
      description =
          "churn: creates, edits and take-downs over the 90 simulated days (default: the profile's)")
  long updates;

  @Option(
      names = "--churn-rate",
      order = 23,
      paramLabel = "N",
      description = {
        "churn: updates per second of wall time, the same stream for every engine: each engine's run"
            + " takes updates / rate seconds (default: ${DEFAULT-VALUE})"
      })
  int rate = 10_000;

  @Option(
      names = "--chart-out",
      order = 24,
      paramLabel = "FILE",
      description =
          "churn: also copy its chart of disk bytes over simulated days to FILE, such as"
              + " docs/benchmarks/churn-disk.png")
  Path chartOut;

  void check() {
    if (updates < 1 || rate < 1) {
      throw new IllegalArgumentException("--churn-updates and --churn-rate must be at least 1");
    }
  }

  /** How long one engine's run takes: the updates at the rate. */
  long runSeconds() {
    return updates / rate;
  }

  /** The write buffer of churn's engines, given the shared one. */
  long writeBuffer(long shared) {
    return keys >= FULL_KEYS ? shared : Math.max(1, shared * keys / FULL_KEYS);
  }
}
