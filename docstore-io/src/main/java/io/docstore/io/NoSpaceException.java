package io.docstore.io;

import java.io.IOException;

/**
 * A write failed because the file system is full ({@code ENOSPC}). Unlike a failed fsync, this is
 * recoverable in place: the writer cuts the file back to its last good length, nothing of the
 * failed write is acknowledged, and the next write retries (see docs/design/durability.md, "Write
 * errors").
 *
 * <p>Raised by the fault-injecting seam's space limit and by {@link #classify} for a real {@code
 * IOException} whose message says "No space left on device" (what the JDK reports for {@code
 * ENOSPC} on Linux) or "Disk quota exceeded" ({@code EDQUOT}). Only write paths classify: an fsync
 * that fails, whatever its message, stays a plain (sticky) I/O error.
 */
public class NoSpaceException extends IOException {

  private static final long serialVersionUID = 1L;

  public NoSpaceException(String message) {
    super(message);
  }

  public NoSpaceException(String message, Throwable cause) {
    super(message, cause);
  }

  /** Whether {@code e} or one of its causes is a full disk (by type or by the OS message). */
  public static boolean isNoSpace(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof NoSpaceException) {
        return true;
      }
      String m = t.getMessage();
      if (t instanceof IOException
          && m != null
          && (m.contains("No space left on device") || m.contains("Disk quota exceeded"))) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  /**
   * {@code e} itself when it is not about space; otherwise a {@code NoSpaceException} (the same
   * object when it already is one) that keeps {@code e} as its cause.
   */
  public static IOException classify(IOException e) {
    if (e instanceof NoSpaceException || !isNoSpace(e)) {
      return e;
    }
    return new NoSpaceException(e.getMessage(), e);
  }
}
