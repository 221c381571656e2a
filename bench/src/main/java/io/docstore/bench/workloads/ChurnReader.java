package io.docstore.bench.workloads;

import io.docstore.bench.engines.Engine;

/**
 * The churn workload's reader: Zipf-skewed reads (s = 1.0, {@link ZipfSampler}) of the postings
 * posted in the last 30 simulated days, the newest the most read (rank r is the r-th newest
 * acknowledged posting), at a fixed rate (a late reader catches up without sleeping) until the
 * writer is done; phase {@code churn-read}.
 *
 * <p>Every read is checked against what the engine has acknowledged ({@link ChurnState}) and, where
 * the engine expires documents itself, against the wall clock: a posting whose removal was
 * acknowledged before the read, or whose expiry had passed when it began, must be absent (else
 * {@code wrong}); one acknowledged as created before the read, with no removal begun and no expiry
 * reached by its end, must be present (else a miss) and be that posting's document (else {@code
 * wrong}); anything in between may be either.
 */
final class ChurnReader implements Runnable {

  private final Engine engine;
  private final ChurnSchedule schedule;
  private final ChurnState state;
  private final long intervalNanos;
  private final ZipfSampler zipf;
  volatile PhaseResult result;
  volatile Throwable failure;

  ChurnReader(Engine engine, ChurnSchedule schedule, ChurnState state, int rate, long seed) {
    this.engine = engine;
    this.schedule = schedule;
    this.state = state;
    this.intervalNanos = 1_000_000_000L / rate;
    this.zipf = new ZipfSampler(schedule.postingsPerTtl(), seed);
  }

  @Override
  public void run() {
    PhaseTimer timer = new PhaseTimer("churn-read");
    boolean expires = engine.expires();
    long ops = 0;
    long misses = 0;
    long wrong = 0;
    try {
      for (long slot = 0; !state.isFinished(); slot++) {
        ChurnState.parkUntil(state.startNanos() + slot * intervalNanos);
        long posting = state.createdThrough() - zipf.next();
        if (posting < 0) {
          continue; // fewer postings acknowledged yet than this rank
        }
        long expiresAt = state.wallMillis(schedule.life(posting).expiresMs());
        byte before = state.state(posting);
        long startMillis = System.currentTimeMillis();
        long t0 = System.nanoTime();
        byte[] value = engine.get(Keys.bytes(posting));
        timer.record(System.nanoTime() - t0);
        long endMillis = System.currentTimeMillis();
        byte after = state.state(posting);
        ops++;
        boolean absent = before == ChurnState.REMOVED || (expires && startMillis >= expiresAt);
        boolean present = after == ChurnState.LIVE && !(expires && endMillis >= expiresAt);
        if (absent) {
          wrong += value == null ? 0 : 1;
        } else if (value == null) {
          misses += present ? 1 : 0;
        } else if (!ReadWhileWritingWorkload.hasId(value, posting)) {
          wrong++;
        }
      }
    } catch (Throwable t) {
      failure = t;
    }
    result = timer.finish(ops, misses, wrong);
  }
}
