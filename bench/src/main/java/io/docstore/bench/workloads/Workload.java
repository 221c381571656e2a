package io.docstore.bench.workloads;

import java.io.IOException;
import java.util.List;

/** One workload of the side-by-side runner, run on one engine in one JVM. */
public interface Workload {

  String name();

  /** Runs every phase on a fresh engine from {@code ctx} and returns what each measured. */
  List<PhaseResult> run(WorkloadContext ctx) throws IOException;
}
