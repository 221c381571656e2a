package io.docstore.io;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Shared helpers for docstore tests: seeds, test scale and child JVMs for kill tests. */
public final class TestSupport {

  private TestSupport() {}

  /**
   * The seed for a randomized test: {@code -Ddocstore.test.seed=N} replays a run, otherwise a fresh
   * one. Printed so a failure can be reproduced.
   */
  public static long seed(String testName) {
    String fixed = System.getProperty("docstore.test.seed");
    long seed =
        fixed != null
            ? Long.parseLong(fixed)
            : System.nanoTime() ^ Double.doubleToLongBits(Math.random());
    System.out.println(
        testName + ": seed " + seed + " (re-run with -Ddocstore.test.seed=" + seed + ")");
    return seed;
  }

  /** Multiplier for iteration counts: {@code -Ddocstore.test.scale=10} for long runs. */
  public static int scale() {
    return Integer.getInteger("docstore.test.scale", 1);
  }

  /**
   * Starts {@code mainClass} in a child JVM with this JVM's class path and docstore's JVM flags,
   * stdout piped for the test to read, stderr inherited.
   */
  public static Process startJvm(Class<?> mainClass, List<String> jvmArgs, String... args)
      throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx256m");
    cmd.add("-XX:+UseSerialGC");
    cmd.add("-XX:TieredStopAtLevel=1");
    String flags = System.getProperty("docstore.jvm.flags", "");
    if (!flags.isBlank()) {
      cmd.addAll(Arrays.asList(flags.trim().split("\\s+")));
    }
    cmd.addAll(jvmArgs);
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(mainClass.getName());
    cmd.addAll(Arrays.asList(args));
    return new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
  }

  /** A line reader over a child's stdout. */
  public static BufferedReader stdout(Process p) {
    return new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
  }

  /** SIGKILLs the process (and waits for it), as {@code kill -9} would. */
  public static void kill9(Process p) throws InterruptedException {
    p.destroyForcibly();
    p.waitFor();
  }

  /**
   * Every regular file under {@code dir} (lock files aside) as "relative-path size
   * last-modified-millis sha256", sorted: equal lists mean nothing in the directory changed.
   */
  public static List<String> fileDigests(Path dir) throws java.io.IOException {
    try (java.util.stream.Stream<Path> files = java.nio.file.Files.walk(dir)) {
      List<String> out = new java.util.ArrayList<>();
      for (Path p : files.filter(java.nio.file.Files::isRegularFile).toList()) {
        if (p.getFileName().toString().equals("LOCK")) {
          continue;
        }
        byte[] digest;
        try {
          digest =
              java.security.MessageDigest.getInstance("SHA-256")
                  .digest(java.nio.file.Files.readAllBytes(p));
        } catch (java.security.NoSuchAlgorithmException e) {
          throw new IllegalStateException(e);
        }
        out.add(
            dir.relativize(p)
                + " "
                + java.nio.file.Files.size(p)
                + " "
                + java.nio.file.Files.getLastModifiedTime(p).toMillis()
                + " "
                + java.util.HexFormat.of().formatHex(digest));
      }
      out.sort(null);
      return out;
    }
  }
}
