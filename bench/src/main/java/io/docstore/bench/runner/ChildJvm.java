package io.docstore.bench.runner;

import io.docstore.bench.engines.Engines;
import io.docstore.service.bulk.ChunkReader;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * Starts engine JVMs: the same java binary, heap and flags for every engine (the bench POM's {@code
 * docstore.jvm.flags}, which include the opens LMDB needs), the bench module's runtime class path,
 * except Indeed lsmtree, which gets {@code target/lsmtree-lib} (its own Guava 16) instead, plus
 * docservice's own classes (none of its dependencies) for the bulk input's reader.
 */
final class ChildJvm {

  private final Path classes;

  /**
   * Where the product's {@link ChunkReader} (used by {@code BulkInput}) is loaded from:
   * docservice's classes.
   */
  private final Path docservice;

  private final String heap;
  private final List<String> flags;

  ChildJvm(String heap) throws IOException {
    this.heap = heap;
    try {
      this.classes =
          Path.of(EngineMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      this.docservice =
          Path.of(ChunkReader.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IOException(e);
    }
    Properties p = new Properties();
    try (InputStream in = ChildJvm.class.getResourceAsStream("/bench-jvm.properties")) {
      if (in == null) {
        throw new IOException(
            "bench-jvm.properties missing from the class path; build the bench module");
      }
      p.load(in);
    }
    this.flags =
        Arrays.stream(p.getProperty("jvm.flags", "").trim().split("\\s+"))
            .filter(s -> !s.isEmpty())
            .toList();
  }

  /** The JVM options every engine JVM gets, for the results file. */
  List<String> jvmOptions() {
    List<String> o = new ArrayList<>();
    o.add("-Xmx" + heap);
    o.add("-Xss1m");
    o.addAll(flags);
    return o;
  }

  String classPath(String engine) throws IOException {
    Path target = classes.getParent();
    if (Engines.needsIsolatedClassPath(engine)) {
      return classes
          + java.io.File.pathSeparator
          + target.resolve("lsmtree-lib").resolve("*")
          + java.io.File.pathSeparator
          + docservice;
    }
    String deps =
        Files.readString(target.resolve("bench.classpath"), StandardCharsets.UTF_8).trim();
    return classes + java.io.File.pathSeparator + deps;
  }

  /**
   * Runs one engine JVM to completion; its stderr goes to {@code log}, its stdout (the results) to
   * {@code log} + ".out", so a hung engine cannot block the runner past the timeout.
   */
  ChildResult run(
      String workload,
      String engine,
      Map<String, Object> args,
      Path dir,
      Path log,
      long timeoutSeconds)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvmOptions());
    cmd.add("-cp");
    cmd.add(classPath(engine));
    cmd.add(EngineMain.class.getName());
    cmd.addAll(ChildArgs.format(args));
    Path stdout = log.resolveSibling(log.getFileName() + ".out");
    Process p =
        new ProcessBuilder(cmd).redirectError(log.toFile()).redirectOutput(stdout.toFile()).start();
    p.getOutputStream().close();
    if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      p.waitFor();
      return ChildResult.failed(workload, engine, "timed out after " + timeoutSeconds + " s");
    }
    if (p.exitValue() != 0) {
      return ChildResult.failed(
          workload, engine, "engine JVM exited with " + p.exitValue() + "; see " + log);
    }
    List<String> lines = Files.readAllLines(stdout, StandardCharsets.UTF_8);
    return ChildResult.parse(workload, engine, lines, DiskUsage.allocatedBytes(dir));
  }
}
