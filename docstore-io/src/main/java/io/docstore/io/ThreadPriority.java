package io.docstore.io;

import com.sun.jna.LastErrorException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lowers the CPU priority (raises the nice value) of the calling thread, for background work that
 * must yield the processor to lookups: index flushes and compactions (the Bing article's point, and
 * what RocksDB's {@code Env::LowerThreadPoolCPUPriority} does for its background pools).
 *
 * <p>Linux applies {@code setpriority(PRIO_PROCESS, 0, n)} to the calling thread only, not to the
 * whole process (setpriority(2), "BUGS"); that is the call made here, through JNA. Java's own
 * {@code Thread.setPriority} changes nothing on Linux without a JVM flag. Best effort: where the
 * call is not available (another OS, no native access) it logs once and the thread keeps its
 * priority. An unprivileged process may raise its nice value but not lower it again.
 */
public final class ThreadPriority {

  private static final Logger log = LoggerFactory.getLogger(ThreadPriority.class);
  private static volatile boolean warned;

  private ThreadPriority() {}

  /**
   * Sets the calling thread's nice value to {@code nice} (0 = normal, 19 = lowest; values below 0
   * are refused).
   *
   * @return whether the priority was changed
   */
  public static boolean lowerCurrentThread(int nice) {
    if (nice < 0 || nice > 19) {
      throw new IllegalArgumentException(
          "nice must be 0..19 (only lowering is allowed), got " + nice);
    }
    LibC.Calls libc = LibC.get();
    if (libc == null || nice == 0) {
      return false;
    }
    try {
      libc.setpriority(LibC.PRIO_PROCESS, 0, nice);
      return true;
    } catch (LastErrorException | LinkageError e) {
      if (!warned) {
        warned = true;
        log.warn(
            "background threads keep their CPU priority: setpriority failed ({})", e.toString());
      }
      return false;
    }
  }
}
