package io.docstore.bench.runner;

import io.docstore.bench.workloads.BulkWorkload;
import io.docstore.bench.workloads.IndeedKvWorkload;
import io.docstore.bench.workloads.JobsWorkload;
import io.docstore.bench.workloads.MixedWorkload;
import io.docstore.bench.workloads.ReadWhileWritingWorkload;
import io.docstore.bench.workloads.Workload;
import java.util.List;

/** The workloads by their command-line name, in the order a full run does them. */
final class Workloads {

  /** What a run does without {@code --workload}. */
  static final List<String> ALL =
      List.of("indeed-kv", "indeed-kv-512m", "jobs", "readwhilewriting", "bulk");

  /**
   * Run only when named ({@code --workload mixed}): it would add about a minute and a half to the
   * default three-minute run and half an hour to a full one (docs/benchmarks/mixed.md).
   */
  static final List<String> ON_REQUEST = List.of("mixed");

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
      default ->
          throw new IllegalArgumentException("unknown workload " + name + "; known: " + KNOWN);
    };
  }
}
