package io.docstore.bench.runner;

import io.docstore.bench.engines.Engine;
import io.docstore.bench.engines.EngineSettings;
import io.docstore.bench.engines.Engines;
import io.docstore.bench.workloads.BulkWorkload;
import io.docstore.bench.workloads.ChurnWorkload;
import io.docstore.bench.workloads.IndeedKvWorkload;
import io.docstore.bench.workloads.JobsWorkload;
import io.docstore.bench.workloads.MixedWorkload;
import io.docstore.bench.workloads.ReadWhileWritingWorkload;
import io.docstore.bench.workloads.Workload;
import io.docstore.service.gc.GcOptions;
import java.io.IOException;
import java.time.Duration;
import java.util.List;

/** The workloads by their command-line name, in the order a full run does them. */
final class Workloads {

  /** What a run does without {@code --workload}. */
  static final List<String> ALL =
      List.of("indeed-kv", "indeed-kv-512m", "jobs", "readwhilewriting", "bulk");

  /**
   * Run only when named ({@code --workload mixed}): mixed would add about a minute and a half to
   * the default three-minute run and half an hour to a full one (docs/benchmarks/mixed.md), churn
   * its run time per engine, 100 s at the quick size and 1,000 s at the full one
   * (docs/benchmarks/churn.md).
   */
  static final List<String> ON_REQUEST = List.of("mixed", "churn");

  /** Every name {@code --workload} accepts. */
  static final List<String> KNOWN =
      java.util.stream.Stream.concat(ALL.stream(), ON_REQUEST.stream()).toList();

  private Workloads() {}

  /** The workload of an engine JVM; {@code notes} collects NOTE lines for the table. */
  static Workload byName(String name, ChildArgs args, java.util.function.Consumer<String> notes) {
    return switch (name) {
      case "bulk" ->
          new BulkWorkload(
              java.nio.file.Path.of(args.get("bulkInput")), (int) args.getLong("threads"), notes);
      case "indeed-kv" -> new IndeedKvWorkload(false);
      case "indeed-kv-512m" -> new IndeedKvWorkload(true);
      case "jobs" -> new JobsWorkload();
      case "readwhilewriting" -> new ReadWhileWritingWorkload();
      case "mixed" ->
          new MixedWorkload(
              (int) args.getLong("mixedThreads"),
              (int) args.getLong("mixedSeconds"),
              MixedWorkload.writePercents(args.get("mixedWrites")),
              notes);
      case "churn" ->
          new ChurnWorkload(
              args.getLong("churnUpdates"),
              (int) args.getLong("churnRate"),
              () -> DiskUsage.allocatedBytes(java.nio.file.Path.of(args.get("dir"))),
              notes);
      default ->
          throw new IllegalArgumentException("unknown workload " + name + "; known: " + KNOWN);
    };
  }

  /**
   * The engine of an engine JVM: in churn, docstore is the service's store, its space reclamation
   * on (with a pass every simulated day) or off (docstore-nogc); every other engine by its name.
   */
  static Engine open(String workload, String engine, EngineSettings settings, ChildArgs args)
      throws IOException {
    boolean gc = engine.equals("docstore");
    if (!workload.equals("churn") || !(gc || engine.equals(Engines.DOCSTORE_NOGC))) {
      return Engines.open(engine, settings);
    }
    Duration day =
        ChurnWorkload.simulatedDay(args.getLong("churnUpdates"), args.getLong("churnRate"));
    GcOptions d = GcOptions.defaults();
    return Engines.openStore(
        settings,
        new GcOptions(
            gc, d.target(), d.bytesPerSecond(), day, d.reserveBytes(), d.minGarbage(), d.batch()));
  }
}
