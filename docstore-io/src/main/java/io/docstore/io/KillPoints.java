package io.docstore.io;

/**
 * Named places where a crash test can have the process die at once, as {@code kill -9} would (no
 * shutdown hooks, no flushing): set the system property {@code docstore.killpoint} to a name,
 * optionally {@code name@N} to die on its N-th hit. Off unless the property is set; the check is a
 * single static read.
 */
public final class KillPoints {

  private static final String SPEC = System.getProperty("docstore.killpoint");
  private static final String NAME;
  private static final java.util.concurrent.atomic.AtomicInteger REMAINING;

  static {
    if (SPEC == null || SPEC.isBlank()) {
      NAME = null;
      REMAINING = null;
    } else {
      int at = SPEC.indexOf('@');
      NAME = at < 0 ? SPEC : SPEC.substring(0, at);
      REMAINING =
          new java.util.concurrent.atomic.AtomicInteger(
              at < 0 ? 1 : Integer.parseInt(SPEC.substring(at + 1)));
    }
  }

  private KillPoints() {}

  /**
   * Halts the JVM with exit status 137 if {@code name} is the armed kill point (and its count is
   * reached).
   */
  public static void reach(String name) {
    if (NAME != null && NAME.equals(name) && REMAINING.decrementAndGet() == 0) {
      System.err.println("docstore: kill point reached: " + name);
      System.err.flush();
      Runtime.getRuntime().halt(137);
    }
  }
}
