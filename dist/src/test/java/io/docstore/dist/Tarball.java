package io.docstore.dist;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The release tarball this build made (failsafe passes its path and the project version), unpacked
 * with the real {@code tar}, and its launcher run as an operator would: {@code bin/docstore} with
 * {@code JAVA_HOME} set to the JVM running the tests.
 */
final class Tarball {

  static final Path FILE = Path.of(System.getProperty("docstore.dist.tarball"));
  static final String VERSION = System.getProperty("docstore.dist.version");
  static final String TOP = "docstore-" + VERSION;

  /** The output and exit code of a finished command. */
  record Result(int exit, String stdout, String stderr) {}

  private Tarball() {}

  /** Unpacks the tarball into {@code dir}; returns its top directory, {@code docstore-VERSION}. */
  static Path unpack(Path dir) throws IOException, InterruptedException {
    Result r =
        run(dir, List.of("tar", "-xzf", FILE.toString(), "-C", dir.toString()), Map.of(), 60);
    if (r.exit() != 0) {
      throw new IOException("tar -xzf " + FILE + " failed: " + r.stderr());
    }
    return dir.resolve(TOP);
  }

  /** A command for {@code bin/docstore ARGS} of an unpacked tarball, on this test's JVM. */
  static ProcessBuilder launcher(Path home, Map<String, String> env, String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(home.resolve("bin/docstore").toString());
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    pb.environment().remove("DOCSTORE_JAVA_OPTS");
    pb.environment().putAll(env);
    return pb;
  }

  /** Runs {@code bin/docstore ARGS} to its end (at most {@code seconds}). */
  static Result docstore(Path home, Map<String, String> env, int seconds, String... args)
      throws IOException, InterruptedException {
    return finish(launcher(home, env, args), home.getParent(), seconds);
  }

  static Result run(Path workDir, List<String> cmd, Map<String, String> env, int seconds)
      throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().putAll(env);
    return finish(pb, workDir, seconds);
  }

  private static Result finish(ProcessBuilder pb, Path workDir, int seconds)
      throws IOException, InterruptedException {
    Path out = Files.createTempFile(workDir, "stdout", ".txt");
    Path err = Files.createTempFile(workDir, "stderr", ".txt");
    Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor();
      throw new IOException(pb.command() + " still running after " + seconds + " s");
    }
    return new Result(
        p.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }
}
