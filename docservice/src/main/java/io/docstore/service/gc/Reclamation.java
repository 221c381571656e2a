package io.docstore.service.gc;

import io.docstore.io.NoSpaceException;
import io.docstore.io.ThreadPriority;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The space reclamation of an open store: a background thread at the index's background CPU
 * priority (its nice value, as for flushes and compactions: {@link ThreadPriority}) that runs a
 * {@link SpaceReclaimer} pass every {@link GcOptions#interval} (at most {@code bytesPerSecond *
 * interval} bytes relocated per pass) unless it is disabled or paused; its metrics and figures.
 */
public final class Reclamation implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Reclamation.class);

  private final SpaceReclaimer reclaimer;
  private final GcOptions options;
  private final ScheduledExecutorService thread;
  private final Object passLock = new Object();
  private volatile boolean paused;
  private volatile SpaceReclaimer.Pass lastPass;
  private volatile String lastError;

  /**
   * @param backgroundNice the nice value of the reclamation's thread (the index's background
   *     priority); 0 leaves it at normal priority
   */
  public Reclamation(
      SpaceReclaimer reclaimer, GcOptions options, int backgroundNice, MeterRegistry registry) {
    this.reclaimer = reclaimer;
    this.options = options;
    FunctionCounter.builder("docstore.gc.reclaimed", reclaimer, SpaceReclaimer::bytesReclaimed)
        .baseUnit("bytes")
        .description("Bytes of queue segments the space reclamation gave back")
        .register(registry);
    FunctionCounter.builder("docstore.gc.relocated", reclaimer, SpaceReclaimer::bytesRelocated)
        .baseUnit("bytes")
        .description(
            "Stored bytes the space reclamation wrote again (live records relocated, as stored in"
                + " their victims)")
        .register(registry);
    FunctionCounter.builder(
            "docstore.gc.relocated.records", reclaimer, SpaceReclaimer::recordsRelocated)
        .description("Records the space reclamation relocated")
        .register(registry);
    FunctionCounter.builder(
            "docstore.gc.segments.reclaimed", reclaimer, SpaceReclaimer::segmentsReclaimed)
        .description("Queue segments replaced by their hollow form")
        .register(registry);
    Gauge.builder("docstore.gc.write.amplification", reclaimer, Reclamation::writeAmplification)
        .description(
            "Bytes relocated over bytes reclaimed, since start (what reclaiming a byte costs in"
                + " writes)")
        .register(registry);
    Gauge.builder("docstore.gc.lz4", reclaimer, SpaceReclaimer::lz4Bytes)
        .baseUnit("bytes")
        .description(
            "Bytes of LZ4 blocks appended while catching up that the space reclamation has yet to"
                + " copy into blocks of the queue's dictionary")
        .register(registry);
    Gauge.builder("docstore.gc.active", reclaimer, r -> r.active() ? 1 : 0)
        .description("1 while a space reclamation pass runs")
        .register(registry);
    Gauge.builder("docstore.gc.paused", this, g -> g.paused || !g.options.enabled() ? 1 : 0)
        .description("1 when the space reclamation is paused or disabled")
        .register(registry);
    if (options.enabled()) {
      thread =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t =
                    new Thread(
                        () -> {
                          ThreadPriority.lowerCurrentThread(backgroundNice);
                          r.run();
                        },
                        "docstore-gc");
                t.setDaemon(true);
                return t;
              });
      long every = options.interval().toMillis();
      thread.scheduleWithFixedDelay(this::tick, every, every, TimeUnit.MILLISECONDS);
    } else {
      thread = null;
    }
  }

  private static double writeAmplification(SpaceReclaimer r) {
    long reclaimed = r.bytesReclaimed();
    return reclaimed == 0 ? 0 : (double) r.bytesRelocated() / reclaimed;
  }

  private void tick() {
    if (paused) {
      return;
    }
    long budget =
        options.bytesPerSecond() == 0
            ? Long.MAX_VALUE
            : Math.max(1, options.bytesPerSecond() * options.interval().toMillis() / 1000);
    try {
      run(options.target(), budget);
    } catch (IOException | RuntimeException e) {
      lastError = e.toString();
      if (NoSpaceException.isNoSpace(e)) {
        log.warn(
            "space reclamation stopped for lack of disk space (retried every interval): {}",
            e.toString());
      } else {
        log.warn("space reclamation pass failed (retried every interval): {}", e.toString());
      }
    }
  }

  /** Runs a pass now (the background thread, or {@code docstore gc}); one at a time. */
  public SpaceReclaimer.Pass run(double target, long budget) throws IOException {
    synchronized (passLock) {
      SpaceReclaimer.Pass p = reclaimer.pass(target, budget);
      lastPass = p;
      lastError = null;
      return p;
    }
  }

  SpaceReclaimer reclaimer() {
    return reclaimer;
  }

  /**
   * A collector of the expiries one batch of writes gives each segment (see {@link #trackFrom}).
   */
  public ExpiryHorizons horizons() {
    return new ExpiryHorizons(reclaimer);
  }

  /** See {@link SpaceReclaimer#trackFrom}. */
  public void trackFrom(long firstNewSegment) {
    reclaimer.trackFrom(firstNewSegment);
  }

  /** Stops starting passes (a running one finishes its segment) until {@link #resume}. */
  public void pause() {
    paused = true;
  }

  public void resume() {
    paused = false;
  }

  public boolean paused() {
    return paused;
  }

  /**
   * Reads the block headers of every sealed segment written before the store opened that no pass
   * has read yet, so that the next pass knows every LZ4 block to recompress (a pass reads a few):
   * for {@code docstore gc}.
   */
  public void readSegmentHeaders() throws IOException {
    synchronized (passLock) {
      reclaimer.learnWholeBlocks(Integer.MAX_VALUE);
    }
  }

  /** Figures for {@code /stats}. */
  public Map<String, Object> stats() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("enabled", options.enabled());
    m.put("paused", paused);
    m.put("active", reclaimer.active());
    m.put("target", options.target());
    m.put("spaceAmplification", reclaimer.spaceAmplification());
    m.put("lz4Bytes", reclaimer.lz4Bytes());
    m.put("segmentsReclaimed", reclaimer.segmentsReclaimed());
    m.put("bytesReclaimed", reclaimer.bytesReclaimed());
    m.put("bytesRelocated", reclaimer.bytesRelocated());
    m.put("recordsRelocated", reclaimer.recordsRelocated());
    m.put("writeAmplification", writeAmplification(reclaimer));
    SpaceReclaimer.Pass p = lastPass;
    if (p != null) {
      m.put("lastPass", p.toString());
    }
    if (lastError != null) {
      m.put("lastError", lastError);
    }
    return m;
  }

  /**
   * Stops the background thread: a running pass stops at its next batch of relocations (waited for
   * up to 30 s).
   */
  @Override
  public void close() {
    reclaimer.stop();
    if (thread == null) {
      return;
    }
    thread.shutdown();
    try {
      thread.awaitTermination(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
