package io.docstore.bench.workloads;

import io.docstore.bench.engines.Engine;
import java.io.IOException;

/**
 * What a workload gets from the runner: a way to open (and reopen) its engine on the run's
 * directory, the sizes, and the hook that makes the following reads cold.
 */
public record WorkloadContext(Opener opener, WorkloadParams params, ColdStart coldStart) {

  /** Opens the engine on the run's directory (fresh the first time, existing data after). */
  @FunctionalInterface
  public interface Opener {
    Engine open() throws IOException;
  }

  /**
   * Called with the engine closed: evicts the directory's pages from the page cache and moves this
   * JVM under the memory limit. Returns a note for the results (e.g. why the limit could not be
   * set).
   */
  @FunctionalInterface
  public interface ColdStart {
    String prepare() throws IOException;
  }
}
