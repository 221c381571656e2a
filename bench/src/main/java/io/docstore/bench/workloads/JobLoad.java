package io.docstore.bench.workloads;

import io.docstore.bench.data.JobDocGenerator;
import io.docstore.bench.engines.Engine;
import java.io.IOException;

/**
 * Loads version 0 of every job document, flushing every batch: the untimed start of the job
 * workloads.
 */
final class JobLoad {

  private JobLoad() {}

  /**
   * Puts documents {@code 0 .. p.keys() - 1}, a flush every {@code p.batch()}, timed as phase
   * {@code name}.
   */
  static PhaseResult load(Engine engine, WorkloadParams p, String name) throws IOException {
    PhaseTimer timer = new PhaseTimer(name);
    for (long id = 0; id < p.keys(); id++) {
      byte[] doc = JobDocGenerator.document(id, 0);
      long t0 = System.nanoTime();
      engine.put(Keys.bytes(id), doc);
      if ((id + 1) % p.batch() == 0) {
        engine.flush();
      }
      timer.record(System.nanoTime() - t0);
    }
    long flushStart = System.nanoTime();
    engine.flush();
    timer.addEngineTime(System.nanoTime() - flushStart);
    return timer.finish(p.keys(), 0, 0);
  }
}
