package io.docstore.service.cli;

import io.docstore.io.AtomicFiles;
import io.docstore.io.DirectoryLock;
import io.docstore.io.FileSystem;
import io.docstore.io.WritableFile;
import io.docstore.queue.format.SegmentFileName;
import io.docstore.queue.tools.Problem;
import io.docstore.queue.tools.QueueVerifier;
import io.docstore.queue.tools.SegmentCopyCheck;
import io.docstore.service.DocStore;
import io.docstore.service.config.DocstoreConfig;
import io.docstore.service.replica.RsyncPuller;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code docstore repair-segments --from SOURCE}: replaces every sealed segment of a stopped store
 * that fails verification with a good copy of the same segment from a peer (a replica, or the
 * primary for a replica's directory). The copy is fetched into a temp file of the queue directory
 * (with the rsync binary for a remote source, as replicas pull; a plain copy from a local
 * directory), verified in full and compared with what the damaged file still says about itself
 * ({@link SegmentCopyCheck}: same segment, sequences and layout, so every address the index holds
 * stays valid), and only then renamed over the damaged file ({@link AtomicFiles#replace}). A copy
 * that does not pass is deleted and the local file left as it was; a segment that verifies is never
 * touched. Refuses while a server or a replica holds the directory.
 */
@Command(
    name = "repair-segments",
    mixinStandardHelpOptions = true,
    description = {
      "Replace every damaged sealed segment with a verified copy of the same segment from a peer"
          + " (a replica, or the primary). Run it on a stopped store.",
      "",
      "A copy replaces a damaged file only if it verifies in full (header, every block, footer and"
          + " its digest of the block checksums), is the same segment (number, first and last"
          + " sequence) and has the same layout (the same footer as the damaged file's where that"
          + " verifies, and every block that still verifies at the same offset with the same"
          + " checksum): the index needs no change. Anything else is refused and the damaged file"
          + " kept. Segments that verify are never touched.",
      "",
      "Exit 0 when every sealed segment verifies afterwards, 1 when a damaged one could not be"
          + " repaired, 2 when DIR holds no docstore data."
    })
final class RepairSegmentsCommand implements Callable<Integer> {

  /** Temp files of a repair (and rsync's own temp files of them): removed before each run. */
  private static final String TEMP_PREFIX = ".repair-";

  /** {@code host:path} (rsync over a remote shell): a colon before any slash. */
  private static final Pattern REMOTE_SHELL = Pattern.compile("^[^/]*:.*");

  @Mixin StoreLocation where = new StoreLocation();

  @Option(
      names = "--from",
      required = true,
      paramLabel = "SOURCE",
      description =
          "Where good copies are: rsync://HOST:PORT/MODULE/ (a primary's scripts/rsync-primary"
              + " module), HOST:PATH/ (rsync over ssh), or a local directory (a peer's data or"
              + " queue directory).")
  String from;

  @Option(
      names = "--rsync",
      paramLabel = "BINARY",
      defaultValue = "rsync",
      description = "The rsync binary for remote sources (default: ${DEFAULT-VALUE}).")
  String rsync;

  @Option(
      names = "--rsync-timeout",
      paramLabel = "SECONDS",
      defaultValue = "60",
      description = "rsync's I/O and connect timeout (default: ${DEFAULT-VALUE}).")
  int timeoutSeconds;

  @Override
  public Integer call() throws Exception {
    DocstoreConfig cfg = where.config();
    Path dir = cfg.dataDir();
    Path queue = dir.resolve("queue");
    FileSystem fs = FileSystem.real();
    if (!Files.isDirectory(queue) || sealedSegments(fs, queue, true).isEmpty()) {
      System.err.println("repair-segments: no docstore data under " + dir);
      return 2;
    }
    Path localSource = local(from);
    if (localSource != null && !Files.isDirectory(localSource)) {
      System.err.println("repair-segments: --from: not a directory: " + localSource);
      return 2;
    }
    if (localSource != null && Files.isSameFile(localSource, queue)) {
      System.err.println("repair-segments: --from names this store's own queue");
      return 2;
    }
    List<DirectoryLock> locks = new ArrayList<>();
    try {
      lock(locks, dir);
      lock(locks, queue);
      if (Files.isDirectory(dir.resolve("index"))) {
        lock(locks, dir.resolve("index")); // a replica holds its index's lock
      }
      return repair(fs, dir, queue, localSource);
    } finally {
      for (DirectoryLock l : locks) {
        l.close();
      }
    }
  }

  private int repair(FileSystem fs, Path dir, Path queue, Path localSource)
      throws IOException, InterruptedException {
    for (Path p : fs.list(queue)) {
      String n = p.getFileName().toString();
      if (n.startsWith(TEMP_PREFIX) || n.startsWith("." + TEMP_PREFIX)) {
        fs.delete(p); // left by an interrupted repair (ours, or rsync's temp file of ours)
      }
    }
    int damaged = 0;
    int repaired = 0;
    for (SegmentFileName name : sealedSegments(fs, queue, false)) {
      Path path = name.in(queue);
      List<Problem> problems = QueueVerifier.verifySegment(fs, path, name);
      if (problems.isEmpty()) {
        continue;
      }
      damaged++;
      System.out.printf(
          "%s: damaged (%d problem(s); first: %s)%n",
          name.fileName(), problems.size(), problems.get(0).description());
      SegmentCopyCheck.Local local = SegmentCopyCheck.describe(fs, queue, name);
      Path temp = queue.resolve(TEMP_PREFIX + name.fileName() + AtomicFiles.TEMP_SUFFIX);
      try {
        String failed =
            localSource != null
                ? copy(fs, localSource.resolve(name.fileName()), temp)
                : fetch(dir, name, temp);
        if (failed == null) {
          failed = SegmentCopyCheck.judge(fs, temp, local);
        }
        if (failed != null) {
          System.out.printf(
              "%s: NOT repaired, the file is left as it was: %s%n", name.fileName(), failed);
          continue;
        }
        AtomicFiles.replace(fs, temp, path);
        List<Problem> after = QueueVerifier.verifySegment(fs, path, name);
        if (!after.isEmpty()) {
          // Not possible unless the disk damages what it was just given: say so, never hide it.
          System.out.printf(
              "%s: replaced, but it fails verification again (%s): check the disk%n",
              name.fileName(), after.get(0));
          continue;
        }
        repaired++;
        System.out.printf(
            "%s: repaired: replaced with a copy from %s that verifies and has the same layout%n",
            name.fileName(), from);
      } finally {
        if (fs.exists(temp)) {
          fs.delete(temp);
        }
      }
    }
    if (damaged == 0) {
      System.out.println("repair-segments: every sealed segment verifies; nothing to do");
      return 0;
    }
    System.out.printf(
        "repair-segments: %d damaged sealed segment(s), %d repaired, %d not%n",
        damaged, repaired, damaged - repaired);
    if (repaired > 0 && hasSkippedDamage(fs, dir)) {
      System.out.println(
          "repair-segments: `docstore rebuild-index --skip-damaged` ran on this store (its report is"
              + " in an index.damaged-* directory): if no full rebuild followed it, run `docstore"
              + " rebuild-index` once the queue verifies, so that the documents it listed as"
              + " unverified read again");
    }
    return repaired == damaged ? 0 : 1;
  }

  /** Copies {@code source} to {@code temp}; null, or why it could not. */
  private static String copy(FileSystem fs, Path source, Path temp) throws IOException {
    if (!fs.exists(source)) {
      return "the source has no " + source.getFileName();
    }
    try (FileChannel in = fs.openRead(source);
        WritableFile out = fs.create(temp)) {
      ByteBuffer buf = ByteBuffer.allocate(1 << 20);
      long at = 0;
      while (true) {
        buf.clear();
        int n = in.read(buf, at);
        if (n < 0) {
          break;
        }
        at += n;
        buf.flip();
        out.write(buf);
      }
    }
    return null;
  }

  /** Fetches the peer's copy of {@code name} with rsync into {@code temp}; null, or why not. */
  private String fetch(Path dir, SegmentFileName name, Path temp)
      throws IOException, InterruptedException {
    Path output = dir.resolve("repair-segments.rsync.out");
    RsyncPuller.Pull pull;
    try {
      pull = RsyncPuller.fetch(rsync, from, name.fileName(), temp, output, timeoutSeconds);
    } finally {
      Files.deleteIfExists(output); // what it said is in the answer
    }
    return pull.ok() ? null : "rsync exited with " + pull.exitCode() + ": " + pull.output();
  }

  /** The local directory holding the peer's segments, or null for an rsync source. */
  private static Path local(String from) {
    if (from.startsWith("rsync://") || REMOTE_SHELL.matcher(from).matches()) {
      return null;
    }
    Path p = Path.of(from);
    return Files.isDirectory(p.resolve("queue")) ? p.resolve("queue") : p;
  }

  private static void lock(List<DirectoryLock> locks, Path d) throws IOException {
    try {
      locks.add(DirectoryLock.acquire(d));
    } catch (IOException e) {
      if (e.getMessage() != null && e.getMessage().contains("in use")) {
        throw new IOException(
            e.getMessage() + "; a server or replica is running on it: stop it first", e);
      }
      throw e;
    }
  }

  /** The sealed segments of {@code queue} in order; with {@code any}, every segment. */
  private static List<SegmentFileName> sealedSegments(FileSystem fs, Path queue, boolean any)
      throws IOException {
    List<SegmentFileName> out = new ArrayList<>();
    for (Path p : fs.list(queue)) {
      SegmentFileName.parse(p).filter(n -> any || n.sealed()).ifPresent(out::add);
    }
    out.sort((a, b) -> Long.compare(a.segment(), b.segment()));
    return out;
  }

  /** Whether a rebuild that skipped damage left its report in an index.damaged-* directory. */
  private static boolean hasSkippedDamage(FileSystem fs, Path dir) throws IOException {
    for (Path p : fs.list(dir)) {
      if (p.getFileName().toString().startsWith("index.damaged-")
          && fs.exists(p.resolve(DocStore.SKIPPED_DAMAGE_REPORT))) {
        return true;
      }
    }
    return false;
  }
}
