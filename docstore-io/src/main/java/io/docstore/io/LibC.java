package io.docstore.io;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The few C library calls docstore makes through JNA, bound once. Linux only: elsewhere (or where
 * native access is refused) {@link #get()} is null and each caller keeps its portable behaviour.
 */
final class LibC {

  private static final Logger log = LoggerFactory.getLogger(LibC.class);

  static final int PRIO_PROCESS = 0;

  /** {@code madvise} advice: expect page references in random order (no read-ahead on a fault). */
  static final int MADV_RANDOM = 1;

  /** {@code getrusage} target: the calling thread. */
  static final int RUSAGE_THREAD = 1;

  /**
   * {@code struct rusage} on 64-bit Linux as longs: two timevals (4 longs), then 14 long counters.
   */
  static final int RUSAGE_LONGS = 18;

  /** Index of {@code ru_majflt} (page faults that waited for I/O) in that array. */
  static final int RU_MAJFLT = 4 + 5;

  interface Calls extends Library {
    int setpriority(int which, int who, int prio) throws LastErrorException;

    int madvise(Pointer addr, long length, int advice) throws LastErrorException;

    int getrusage(int who, long[] usage) throws LastErrorException;
  }

  private static final Calls CALLS = bind();

  private LibC() {}

  /** The bound calls, or null where they are not available. */
  static Calls get() {
    return CALLS;
  }

  private static Calls bind() {
    if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
      return null;
    }
    try {
      return Native.load("c", Calls.class);
    } catch (LinkageError | RuntimeException e) {
      log.warn(
          "the C library could not be bound: background threads keep their CPU priority and files are read"
              + " with positional reads only ({})",
          e.toString());
      return null;
    }
  }
}
