package io.docstore.bench.runner;

import io.docstore.bench.workloads.BulkWorkload;
import io.docstore.bench.workloads.IndeedKvWorkload;
import io.docstore.bench.workloads.JobsWorkload;
import io.docstore.bench.workloads.ReadWhileWritingWorkload;
import io.docstore.bench.workloads.Workload;
import java.util.List;

/** The workloads by their command-line name, in the order a full run does them. */
final class Workloads {

  static final List<String> ALL = List.of("indeed-kv", "indeed-kv-512m", "jobs", "readwhilewriting", "bulk");

  private Workloads() {}

  /** The workload of an engine JVM; {@code notes} collects NOTE lines for the table. */
  static Workload byName(String name, ChildArgs args, java.util.function.Consumer<String> notes) {
    return switch (name) {
      case "bulk" -> new BulkWorkload(java.nio.file.Path.of(args.get("bulkInput")), (int) args.getLong("threads"), notes);
      case "indeed-kv" -> new IndeedKvWorkload(false);
      case "indeed-kv-512m" -> new IndeedKvWorkload(true);
      case "jobs" -> new JobsWorkload();
      case "readwhilewriting" -> new ReadWhileWritingWorkload();
      default -> throw new IllegalArgumentException("unknown workload " + name + "; known: " + ALL);
    };
  }
}
