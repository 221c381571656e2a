package io.docstore.service.replica;

import io.docstore.io.FileSystem;
import io.docstore.queue.replication.ManifestFormat;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the real {@code rsync} binary to copy a primary's queue directory (an rsync daemon module,
 * {@code rsync://host:port/module/}, or a local or SSH path) into a replica's copy.
 *
 * <p>Flags and why (docs/replication.md, docs/decisions.md "Replicas"):
 *
 * <ul>
 *   <li>default transfer mode: every changed file is rebuilt in a temp file ({@code .seg-….Ab12Cd},
 *       a random suffix, a name the segment-name parser ignores) and renamed over the old one, so a
 *       reader never sees a file rsync is writing; never {@code --inplace} or {@code --append};
 *   <li>{@code --include} the manifest and segment names only, {@code --exclude=*} the rest (temp
 *       files, index files, anything else on the primary);
 *   <li>{@code --delete-after}: an {@code .active} copy goes only after its {@code .sealed}
 *       successor has arrived; {@code --fuzzy}: that successor is built from the {@code .active}
 *       copy as the basis, so sealing does not re-send the segment;
 *   <li>the local manifest's mtime is set to 0 before each pull, so it is always fetched (the
 *       primary rewrites it at the same size, possibly within one mtime tick); it is never deleted,
 *       so a failed pull leaves the last one copied in place (what the primary last declared, for
 *       the replica's figures, also after a restart);
 *   <li>{@code --safe-links}, {@code --timeout}/{@code --contimeout}, and {@code --fsync} where the
 *       binary has it (rsync 3.2.4+); the directory is fsynced after every pull either way.
 * </ul>
 *
 * <p>Thread-safety: {@link #pull} from one thread at a time; {@link #running} from any thread.
 */
public final class RsyncPuller {

  private static final Logger LOG = LoggerFactory.getLogger(RsyncPuller.class);

  /** rsync's "some files vanished before they could be transferred": a segment sealed mid-pull. */
  private static final int PARTIAL_VANISHED = 24;

  /** The outcome of one pull. */
  public record Pull(boolean ok, int exitCode, long nanos, String output) {}

  private final FileSystem fs;
  private final String rsync;
  private final String source;
  private final Path target;
  private final int timeoutSeconds;
  private final boolean fsyncFlag;
  private final Path outputFile;
  private volatile Process running;

  /**
   * @param target the copy's directory; rsync's output goes to {@code rsync.out} next to it
   * @param source {@code rsync://host:port/module/}, {@code host:path/} or a local directory ending
   *     in {@code /}
   * @throws IllegalStateException naming {@code scripts/install-deps} when the binary cannot run
   */
  public RsyncPuller(
      FileSystem fs, String rsyncBinary, String source, Path target, int timeoutSeconds)
      throws IOException {
    this.fs = fs;
    this.rsync = rsyncBinary;
    this.source = source.endsWith("/") ? source : source + "/";
    this.target = target;
    this.timeoutSeconds = timeoutSeconds;
    this.fsyncFlag = supportsFsync(rsyncBinary);
    this.outputFile = target.toAbsolutePath().getParent().resolve("rsync.out");
    fs.createDirectories(target);
  }

  private static boolean supportsFsync(String rsync) {
    try {
      Process p = new ProcessBuilder(rsync, "--help").redirectErrorStream(true).start();
      String help = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      p.waitFor(10, TimeUnit.SECONDS);
      return help.contains("--fsync");
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot run '"
              + rsync
              + "' ("
              + e.getMessage()
              + "): replicas copy the queue with the real rsync binary; install it with scripts/install-deps",
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while checking " + rsync, e);
    }
  }

  /** The command line of one pull. */
  public List<String> command() {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                rsync,
                "--recursive",
                "--times",
                "--safe-links",
                "--delete-after",
                "--fuzzy",
                "--timeout=" + timeoutSeconds,
                "--include=" + ManifestFormat.FILE_NAME,
                "--include=seg-*.active",
                "--include=seg-*.sealed",
                "--exclude=*"));
    if (source.startsWith("rsync://")) {
      cmd.add(3, "--contimeout=" + timeoutSeconds);
    }
    if (fsyncFlag) {
      cmd.add(3, "--fsync");
    }
    cmd.add(source);
    cmd.add(target.toString() + "/");
    return cmd;
  }

  /** The rsync process of the pull in progress, or null (for operators' tools and kill tests). */
  public ProcessHandle running() {
    Process p = running;
    return p == null ? null : p.toHandle();
  }

  /**
   * Runs one pull to completion (or kills it after twice the I/O timeout) and fsyncs the copy's
   * directory.
   */
  public Pull pull() throws IOException, InterruptedException {
    removeStaleTempFiles();
    // The manifest is rewritten in place of itself at a fixed size, possibly twice within rsync's
    // mtime resolution, so the quick check (size + mtime) could skip a changed one forever: give
    // the local copy an mtime no primary's has, so that every pull fetches it (into a temp file,
    // renamed over the old one). Until then the old one stays: a pull that fails keeps it.
    Path manifest = target.resolve(ManifestFormat.FILE_NAME);
    if (fs.exists(manifest)) {
      java.nio.file.Files.setLastModifiedTime(manifest, FileTime.fromMillis(0));
    }
    long t0 = System.nanoTime();
    int code;
    try {
      code = run(command(), outputFile, timeoutSeconds, p -> running = p);
    } finally {
      running = null;
    }
    long nanos = System.nanoTime() - t0;
    if (code == TIMED_OUT) {
      return new Pull(
          false, -1, nanos, "rsync did not finish within " + (2 * timeoutSeconds + 5) + " s");
    }
    boolean ok = code == 0 || code == PARTIAL_VANISHED;
    fs.syncDirectory(target);
    return new Pull(ok, code, nanos, ok ? "" : tail(outputFile));
  }

  /**
   * Fetches one file of {@code source} ({@code rsync://host:port/module/}, {@code host:path/} or a
   * local directory) with the rsync binary into {@code target}, under the same timeouts as a pull:
   * rsync builds it in a temp file of its own next to {@code target} and renames it there. For
   * {@code docstore repair-segments}, which verifies the copy before it uses it. The caller forces
   * the file and its directory; rsync's output goes to {@code outputFile}.
   *
   * @throws IllegalStateException naming {@code scripts/install-deps} when the binary cannot run
   */
  public static Pull fetch(
      String rsyncBinary,
      String source,
      String fileName,
      Path target,
      Path outputFile,
      int timeoutSeconds)
      throws IOException, InterruptedException {
    String from = (source.endsWith("/") ? source : source + "/") + fileName;
    List<String> cmd =
        new ArrayList<>(List.of(rsyncBinary, "--times", "--timeout=" + timeoutSeconds));
    if (from.startsWith("rsync://")) {
      cmd.add("--contimeout=" + timeoutSeconds);
    }
    if (supportsFsync(rsyncBinary)) {
      cmd.add("--fsync");
    }
    cmd.add(from);
    cmd.add(target.toString());
    long t0 = System.nanoTime();
    int code = run(cmd, outputFile, timeoutSeconds, p -> {});
    long nanos = System.nanoTime() - t0;
    if (code == TIMED_OUT) {
      return new Pull(
          false, -1, nanos, "rsync did not finish within " + (2 * timeoutSeconds + 5) + " s");
    }
    return new Pull(code == 0, code, nanos, code == 0 ? "" : tail(outputFile));
  }

  /** {@link #run}'s answer when rsync did not finish in time (and was killed). */
  private static final int TIMED_OUT = Integer.MIN_VALUE;

  /**
   * Runs one rsync command to completion, or kills it (and its forked children) after twice the I/O
   * timeout; returns its exit code or {@link #TIMED_OUT}.
   */
  private static int run(
      List<String> cmd,
      Path outputFile,
      int timeoutSeconds,
      java.util.function.Consumer<Process> started)
      throws IOException, InterruptedException {
    // Output to a file, not a pipe: an rsync child orphaned by a kill would hold a pipe open.
    Process p =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.to(outputFile.toFile()))
            .start();
    started.accept(p);
    p.getOutputStream().close();
    if (!p.waitFor(2L * timeoutSeconds + 5, TimeUnit.SECONDS)) {
      killTree(p);
      return TIMED_OUT;
    }
    int code = p.exitValue();
    if (code != 0 && code != PARTIAL_VANISHED) {
      killTree(p); // the receiver's forked children, if the parent was killed
    }
    return code;
  }

  private static void killTree(Process p) throws InterruptedException {
    p.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
    p.destroyForcibly();
    p.waitFor();
  }

  private static String tail(Path file) throws IOException {
    byte[] all = java.nio.file.Files.readAllBytes(file);
    int from = Math.max(0, all.length - 4096);
    return new String(all, from, all.length - from, StandardCharsets.UTF_8).trim();
  }

  /**
   * Temp files of an rsync that was killed mid-transfer ({@code --partial} is off, but SIGKILL
   * leaves them). Only called between pulls, when no rsync writes here.
   */
  private void removeStaleTempFiles() throws IOException {
    for (Path f : fs.list(target)) {
      String name = f.getFileName().toString();
      if (name.startsWith(".seg-") || name.startsWith("." + ManifestFormat.FILE_NAME + ".")) {
        LOG.info("removing {} left by an interrupted rsync", name);
        fs.delete(f);
      }
    }
  }
}
