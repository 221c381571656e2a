package io.docstore.bench.workloads;

import com.google.common.util.concurrent.Uninterruptibles;
import io.docstore.bench.data.JobDocGenerator;
import io.docstore.bench.engines.Engine;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Space reclamation under a job corpus's churn (docs/benchmarks/churn.md): {@link ChurnSchedule}'s
 * postings, created, edited, taken down and expiring over 90 simulated days with a 30-day time to
 * live, written by one thread as a constant-rate stream on the wall clock (the run takes {@code
 * updates / rate} seconds, so 30 simulated days are a third of it), the same stream for every
 * engine, while {@link ChurnReader} reads Zipf-skewed postings at the same rate.
 *
 * <p>A create or edit is a put (of {@link JobDocGenerator}'s document at that version), a take-down
 * a delete, {@code batch} writes per flush. An engine that expires documents itself ({@link
 * Engine#expires()}: docstore's store) gets each posting's expiry with every put and nothing when
 * it expires; every other engine gets a delete then, as an application would do. A writer that
 * falls behind the stream catches up without sleeping, and its largest lag is reported.
 *
 * <p>Phases: {@code churn}, the writer, with the space figures as fields of their own (ops are the
 * stream's updates, over wall time: the achieved update rate; the latencies are of every engine
 * write and the flush that ended its batch, expiry deletes included), and {@code churn-read}. A
 * writer up to a second or a simulated day late (whichever is longer) kept up; later, a note says
 * it fell behind. Once per simulated day a sampler records the bytes the engine's directory
 * occupies on disk ({@link DiskProbe}), the uncompressed bytes of the live documents' current
 * versions (the same definition for every engine) and what the engine says of its own space ({@link
 * Engine#spaceStats()}); the space amplification is disk over live bytes, averaged over the samples
 * of the last third of the run.
 */
public final class ChurnWorkload implements Workload {

  /** Fields of the churn phase: one sample a simulated day (the writer's day, disk, live bytes). */
  public static final String SAMPLE_DAY = "sample_day";

  public static final String SAMPLE_DISK = "sample_disk_bytes";
  public static final String SAMPLE_LIVE = "sample_live_bytes";

  /** The bytes an engine's directory occupies on disk. */
  @FunctionalInterface
  public interface DiskProbe {
    long bytes() throws IOException;
  }

  private final long updates;
  private final int rate;
  private final DiskProbe disk;
  private final Consumer<String> notes;

  /**
   * @param updates creates, edits and take-downs over the run
   * @param rate updates per second of wall time (and reads per second)
   * @param disk the engine directory's bytes on disk
   * @param notes collects NOTE lines for the table
   */
  public ChurnWorkload(long updates, int rate, DiskProbe disk, Consumer<String> notes) {
    if (updates < 1 || rate < 1) {
      throw new IllegalArgumentException("churn needs updates and a rate");
    }
    this.updates = updates;
    this.rate = rate;
    this.disk = disk;
    this.notes = notes;
  }

  /** The wall time of one simulated day: the run ({@code updates / rate} seconds) over 90. */
  public static Duration simulatedDay(long updates, long rate) {
    return Duration.ofNanos(runNanos(updates, rate) / ChurnSchedule.DAYS);
  }

  private static long runNanos(long updates, long rate) {
    return (long) (updates * 1e9 / rate);
  }

  @Override
  public String name() {
    return "churn";
  }

  @Override
  public List<PhaseResult> run(WorkloadContext ctx) throws IOException {
    WorkloadParams p = ctx.params();
    ChurnSchedule schedule = new ChurnSchedule(p.keys(), updates, p.seed());
    long runNanos = runNanos(updates, rate);
    try (Engine engine = ctx.opener().open()) {
      ChurnState state =
          new ChurnState(schedule.postings(), (double) runNanos / ChurnSchedule.END_MS);
      ChurnReader reader = new ChurnReader(engine, schedule, state, rate, p.seed() + 1);
      Sampler sampler = new Sampler(engine, state);
      List<Thread> threads =
          List.of(new Thread(reader, "bench-churn-reader"), new Thread(sampler, "bench-sampler"));
      threads.forEach(Thread::start);
      Writer writer = new Writer(engine, schedule, state, p.batch());
      try {
        writer.run();
      } finally {
        state.finish();
        threads.forEach(Uninterruptibles::joinUninterruptibly);
      }
      Throwable failed = reader.failure != null ? reader.failure : sampler.failure;
      if (failed != null) {
        throw new IOException("churn reader or sampler failed", failed);
      }
      double dayNanos = runNanos / (double) ChurnSchedule.DAYS;
      if (writer.maxLagNanos > Math.max(1e9, dayNanos)) {
        notes.accept(
            String.format(
                Locale.ROOT,
                "fell behind the stream: up to %.1f s late (%.1f simulated days); its figures are"
                    + " for a slower stream than the others'",
                writer.maxLagNanos / 1e9,
                writer.maxLagNanos / dayNanos));
      }
      Map<String, Object> fields = writer.fields(runNanos);
      fields.putAll(sampler.fields(engine.spaceStats()));
      return List.of(writer.result.withExtra(fields), reader.result);
    }
  }

  /** The stream's writes, on the calling thread. */
  private static final class Writer {
    private final Engine engine;
    private final ChurnSchedule schedule;
    private final ChurnState state;
    private final int batch;
    private final boolean expires;
    private final PhaseTimer timer = new PhaseTimer("churn");
    private long[] removals = new long[64];
    private int pending;
    private int pendingRemovals;
    private long created;
    long updates;
    long expiryDeletes;
    long docBytes;
    long maxLagNanos;
    long nanos;
    PhaseResult result;

    Writer(Engine engine, ChurnSchedule schedule, ChurnState state, int batch) {
      this.engine = engine;
      this.schedule = schedule;
      this.state = state;
      this.batch = batch;
      this.expires = engine.expires();
    }

    void run() throws IOException {
      for (ChurnSchedule.Event e; (e = schedule.next()) != null; ) {
        long due = state.dueNanos(e.timeMs());
        maxLagNanos = Math.max(maxLagNanos, System.nanoTime() - due);
        ChurnState.parkUntil(due);
        long posting = e.posting();
        byte[] key = Keys.bytes(posting);
        switch (e.kind()) {
          case CREATE, EDIT -> {
            byte[] doc = JobDocGenerator.document(posting, e.version());
            boolean create = e.kind() == ChurnSchedule.Kind.CREATE;
            long previous = create ? 0 : JobDocGenerator.document(posting, e.version() - 1).length;
            long expiresAt = state.wallMillis(schedule.life(posting).expiresMs());
            long t0 = System.nanoTime();
            if (expires) {
              engine.put(key, doc, expiresAt);
            } else {
              engine.put(key, doc);
            }
            created = create ? posting + 1 : created;
            updates++;
            docBytes += doc.length;
            state.wrote(e.timeMs(), create ? 1 : 0, doc.length - previous);
            written(t0);
          }
          case TAKEDOWN, EXPIRE -> {
            int length = JobDocGenerator.document(posting, e.version()).length;
            if (e.kind() == ChurnSchedule.Kind.EXPIRE && expires) {
              ChurnState.parkUntilMillis(state.wallMillis(e.timeMs()));
              state.removed(posting);
              state.wrote(e.timeMs(), -1, -length);
              continue;
            }
            state.removing(posting);
            long t0 = System.nanoTime();
            engine.delete(key);
            if (pendingRemovals == removals.length) {
              removals = Arrays.copyOf(removals, removals.length * 2);
            }
            removals[pendingRemovals++] = posting;
            updates += e.kind() == ChurnSchedule.Kind.TAKEDOWN ? 1 : 0;
            expiryDeletes += e.kind() == ChurnSchedule.Kind.EXPIRE ? 1 : 0;
            state.wrote(e.timeMs(), -1, -length);
            written(t0);
          }
        }
      }
      long t0 = System.nanoTime();
      flush();
      timer.addEngineTime(System.nanoTime() - t0);
      nanos = System.nanoTime() - state.startNanos();
      result = timer.finishAtWallClockRate(updates);
    }

    /** One engine write that started at {@code t0}, and the flush that ends its batch. */
    private void written(long t0) throws IOException {
      if (++pending == batch) {
        flush();
      }
      timer.record(System.nanoTime() - t0);
    }

    private void flush() throws IOException {
      engine.flush();
      state.acknowledge(created, removals, pendingRemovals);
      pending = 0;
      pendingRemovals = 0;
    }

    Map<String, Object> fields(long runNanos) {
      Map<String, Object> f = new LinkedHashMap<>();
      f.put("updates", updates);
      f.put("offered_updates_per_s", Math.round(updates * 1e9 / runNanos));
      f.put("updates_per_s", Math.round(updates * 1e9 / nanos));
      f.put("expiry_deletes", expiryDeletes);
      f.put("max_lag_s", round(maxLagNanos / 1e9));
      f.put("doc_bytes_written", docBytes);
      f.put("live_docs", state.liveDocs());
      f.put("live_bytes", state.liveBytes());
      return f;
    }
  }

  /**
   * Once per simulated day: disk and live bytes. A sampler running late takes the days it missed
   * one after the other, and its last sample when the writer is done.
   */
  private final class Sampler implements Runnable {
    private final Engine engine;
    private final ChurnState state;
    private final List<Double> days = new ArrayList<>();
    private final List<Long> diskBytes = new ArrayList<>();
    private final List<Long> liveBytes = new ArrayList<>();
    private final List<Double> engineAmplification = new ArrayList<>();
    volatile Throwable failure;

    Sampler(Engine engine, ChurnState state) {
      this.engine = engine;
      this.state = state;
    }

    @Override
    public void run() {
      try {
        for (int day = 0; day <= ChurnSchedule.DAYS; day++) {
          long wait =
              day == ChurnSchedule.DAYS
                  ? Long.MAX_VALUE
                  : state.dueNanos(day * ChurnSchedule.DAY_MS) - System.nanoTime();
          boolean finished = state.awaitFinished(wait);
          sample();
          if (finished) {
            return; // the writer's end (before day 90 only if it failed or this sampler was late)
          }
        }
      } catch (Throwable t) {
        failure = t;
      }
    }

    private void sample() throws IOException {
      days.add(round((double) state.simMs() / ChurnSchedule.DAY_MS));
      diskBytes.add(disk.bytes());
      liveBytes.add(state.liveBytes());
      Number own = engine.spaceStats().get("space_amplification");
      if (own != null) {
        engineAmplification.add(own.doubleValue());
      }
    }

    /**
     * The samples, the space amplification over the last third of the run (disk over live bytes,
     * and the engine's own where it has one) and, from the engine's final figures, its space
     * reclamation's write amplification: the stored bytes it relocated over those the workload's
     * own writes took (all stored bytes less the relocated).
     */
    Map<String, Object> fields(Map<String, Number> engineStats) {
      Map<String, Object> f = new LinkedHashMap<>();
      int n = days.size();
      f.put("disk_bytes_end", diskBytes.get(n - 1));
      double sum = 0;
      double own = 0;
      int steady = 0;
      for (int i = 0; i < n; i++) {
        if (days.get(i) >= ChurnSchedule.DAYS * 2.0 / 3 && liveBytes.get(i) > 0) {
          sum += (double) diskBytes.get(i) / liveBytes.get(i);
          own += i < engineAmplification.size() ? engineAmplification.get(i) : 0;
          steady++;
        }
      }
      f.put("space_amp", steady == 0 ? 0 : round(sum / steady));
      if (!engineStats.isEmpty()) {
        f.put("engine_space_amp", steady == 0 ? 0 : round(own / steady));
        long relocated = engineStats.get("bytes_relocated").longValue();
        long workload = engineStats.get("bytes_stored").longValue() - relocated;
        f.put("gc_relocated_bytes", relocated);
        f.put("gc_reclaimed_bytes", engineStats.get("bytes_reclaimed").longValue());
        f.put("gc_write_amp", workload <= 0 ? 0 : round((double) relocated / workload));
      }
      f.put(SAMPLE_DAY, days);
      f.put(SAMPLE_DISK, diskBytes);
      f.put(SAMPLE_LIVE, liveBytes);
      return f;
    }
  }

  private static double round(double v) {
    return Math.round(v * 100) / 100.0;
  }
}
