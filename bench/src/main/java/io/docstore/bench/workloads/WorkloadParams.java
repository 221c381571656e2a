package io.docstore.bench.workloads;

/**
 * Sizes of one run, the same for every engine.
 *
 * @param keys keys (indeed-kv) or job documents (jobs, readwhilewriting preload)
 * @param reads reads of the read phase (indeed-kv reads every key once whatever this says)
 * @param batch puts per {@code Engine.flush()}
 * @param seed seed of every random choice; same seed, same keys, values and order
 * @param coldSeconds cap on the cold read phase of indeed-kv-512m
 * @param rwSeconds length of each readwhilewriting phase
 * @param writeRate writes per second of the readwhilewriting writer
 */
public record WorkloadParams(
    long keys, long reads, int batch, long seed, int coldSeconds, int rwSeconds, int writeRate) {

  public WorkloadParams {
    if (keys < 2 || reads < 1 || batch < 1 || coldSeconds < 1 || rwSeconds < 1 || writeRate < 1) {
      throw new IllegalArgumentException("bad workload sizes");
    }
  }
}
