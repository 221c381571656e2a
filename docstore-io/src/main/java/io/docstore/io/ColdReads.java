package io.docstore.io;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * Tells a reader whether to read through a file's mapping now, or the other way (a positional read,
 * its own cache): a guess at whether the OS page cache holds what is being read, from how the last
 * mapped reads went.
 *
 * <p>A mapping advised {@code MADV_RANDOM} reads one 4 KiB page per fault, so a cold read through
 * it costs a disk read per page touched, and waits for each. A mapped read is timed ({@link
 * #started}, {@link #finished}); one that took longer than {@code slowNanos} and during which the
 * thread's count of major page faults grew (it waited for the disk, not just for a core) sends the
 * next {@code backoff} reads the other way ({@link #useMapping} false), then the mapping is tried
 * again. A warm file is read through the mapping, a cold one the other way plus one probe in {@code
 * backoff} reads. Where the fault count cannot be had, a slow read counts as cold.
 *
 * <p>Only one mapped read in {@code sampleEvery} (at random, per thread) is timed: a clock read
 * costs about 25 ns on the machines measured, two per read, and a get makes two mapped reads (an
 * index page, a queue block), which was a twentieth of a warm get. A cold page cache makes every
 * read slow, so it is still seen within a few reads.
 *
 * <p>Thread-safe. The count of reads left is shared by all threads, since coldness is the page
 * cache's, not a thread's; it is read and written without synchronization: a lost update only moves
 * the next probe a little. Each thread's last fault count is its own.
 */
public final class ColdReads {

  /**
   * A mapped read slower than this may have waited for the disk: resident pages take 1-5 us through
   * a mapping, a disk read 15-50 us on the machines measured.
   */
  public static final long SLOW_NANOS = 10_000;

  /** Reads made the other way after a cold mapped read, before the mapping is tried again. */
  public static final int BACKOFF = 1024;

  /** One mapped read in this many is timed. */
  public static final int SAMPLE_EVERY = 8;

  /** What {@link #started} returns for a read it does not time. */
  private static final long NOT_TIMED = Long.MIN_VALUE;

  private final long slowNanos;
  private final int backoff;
  private final int sampleEvery;
  private final LongSupplier majorFaults;
  private final ThreadLocal<long[]> lastFaults;
  private final LongAdder cold = new LongAdder();
  private int left;

  /** With the defaults and the calling thread's real major faults. */
  public ColdReads() {
    this(SLOW_NANOS, BACKOFF, SAMPLE_EVERY, MappedFile::threadMajorFaults);
  }

  /**
   * @param sampleEvery one mapped read in this many is timed (1: every one)
   * @param majorFaults the calling thread's count of major page faults so far, or -1 if unknown
   */
  public ColdReads(long slowNanos, int backoff, int sampleEvery, LongSupplier majorFaults) {
    if (sampleEvery < 1) {
      throw new IllegalArgumentException("sampleEvery must be >= 1, got " + sampleEvery);
    }
    this.slowNanos = slowNanos;
    this.backoff = backoff;
    this.sampleEvery = sampleEvery;
    this.majorFaults = majorFaults;
    this.lastFaults = ThreadLocal.withInitial(() -> new long[] {-1});
  }

  /**
   * Whether the next read should go through the mapping; false (and one read fewer left) while
   * cold.
   */
  public boolean useMapping() {
    int l = left;
    if (l > 0) {
      left = l - 1;
      return false;
    }
    return true;
  }

  /**
   * Whether the last timed mapped reads found their pages in memory: no read is being sent the
   * other way. A guess, as everything here: a read may still fault on a page the OS dropped.
   */
  public boolean warm() {
    return left <= 0;
  }

  /**
   * The clock for a mapped read about to start, for one read in {@code sampleEvery}; pass it to
   * {@link #finished}.
   */
  public long started() {
    if (sampleEvery > 1 && ThreadLocalRandom.current().nextInt(sampleEvery) != 0) {
      return NOT_TIMED;
    }
    return System.nanoTime();
  }

  /**
   * Reports a mapped read whose {@link #started} returned {@code startedNanos}; true if it was
   * timed and cold (and reads now go the other way).
   */
  public boolean finished(long startedNanos) {
    if (startedNanos == NOT_TIMED
        || System.nanoTime() - startedNanos <= slowNanos
        || !waitedForDisk()) {
      return false;
    }
    left = backoff;
    cold.increment();
    return true;
  }

  /** Mapped reads found cold so far. */
  public long coldReads() {
    return cold.sum();
  }

  /**
   * Whether this thread waited for the disk since it last asked: its count of major page faults
   * grew. A slow read without one was a descheduled thread or a page-table fault, not a cold page.
   * A thread's first slow read only takes its count (no system call is spent on a thread before it
   * reads slowly), so it is not judged cold.
   */
  private boolean waitedForDisk() {
    long faults = majorFaults.getAsLong();
    if (faults < 0) {
      return true;
    }
    long[] last = lastFaults.get();
    boolean waited = last[0] >= 0 && faults > last[0];
    last[0] = faults;
    return waited;
  }
}
