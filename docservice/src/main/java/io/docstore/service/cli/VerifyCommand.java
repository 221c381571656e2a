package io.docstore.service.cli;

import io.docstore.index.file.FileNames;
import io.docstore.index.tools.IndexVerifier;
import io.docstore.io.CorruptionException;
import io.docstore.io.FileSystem;
import io.docstore.queue.follow.FollowPoint;
import io.docstore.queue.format.SegmentFileName;
import io.docstore.queue.replication.ManifestFormat;
import io.docstore.queue.replication.ReplicationManifest;
import io.docstore.queue.tools.QueueVerifier;
import io.docstore.service.cache.CacheEpoch;
import io.docstore.service.inbox.InboxPoint;
import io.docstore.service.replica.ReplicaNode;
import io.docstore.service.store.IndexCheckpoint;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code docstore verify DIR}: checks every checksum under a data directory: the queue ({@code
 * queue/}, or DIR itself when it holds segments), the index ({@code index/}, or DIR itself when it
 * holds an index MANIFEST), the index checkpoint, the replication manifest, a replica's ingestion
 * point, the cache epoch and the inbox point. Prints one line per problem (file, offset, what) and
 * exits 1 if there is any, 0 when all is well, 2 when DIR holds no docstore data. Run it on a
 * stopped store: a running writer's unfinished tail looks like a torn tail.
 */
@Command(
    name = "verify",
    mixinStandardHelpOptions = true,
    description =
        "Check every block, page, footer and checksum under a data directory; exit 1 on any problem.")
final class VerifyCommand implements Callable<Integer> {

  @Parameters(paramLabel = "DIR", description = "A data directory, or a queue or index directory.")
  Path dir;

  @Override
  public Integer call() throws Exception {
    if (!Files.isDirectory(dir)) {
      System.err.println("verify: not a directory: " + dir);
      return 2;
    }
    FileSystem fs = FileSystem.real();
    List<String> problems = new ArrayList<>();
    int checked = 0;
    for (Path queueDir : candidates(dir, "queue", VerifyCommand::holdsSegments)) {
      checked++;
      QueueVerifier.verify(fs, queueDir).forEach(p -> problems.add(p.toString()));
      if (fs.exists(queueDir.resolve(ManifestFormat.FILE_NAME))) {
        check(problems, () -> ReplicationManifest.read(fs, queueDir));
      }
    }
    for (Path indexDir :
        candidates(dir, "index", d -> Files.exists(d.resolve(FileNames.MANIFEST)))) {
      checked++;
      IndexVerifier.verify(fs, indexDir).forEach(p -> problems.add(p.toString()));
    }
    check(problems, () -> IndexCheckpoint.read(fs, dir));
    check(problems, () -> CacheEpoch.read(fs, dir));
    check(problems, () -> InboxPoint.read(fs, dir));
    if (fs.exists(dir.resolve(ReplicaNode.POINT_FILE))) {
      check(problems, () -> FollowPoint.read(fs, dir.resolve(ReplicaNode.POINT_FILE)));
    }
    if (checked == 0) {
      System.err.println("verify: no docstore data under " + dir);
      return 2;
    }
    problems.forEach(System.out::println);
    System.out.println(
        problems.isEmpty() ? "verify: OK" : "verify: " + problems.size() + " problem(s)");
    return problems.isEmpty() ? 0 : 1;
  }

  private interface Read {
    Object read() throws IOException;
  }

  /** Reads one small state file; damage becomes a problem line naming file and offset. */
  private static void check(List<String> problems, Read read) throws IOException {
    try {
      read.read();
    } catch (CorruptionException e) {
      problems.add(e.getMessage());
    }
  }

  private interface DirTest {
    boolean test(Path dir) throws IOException;
  }

  /** DIR itself and DIR/sub, where they pass {@code test}. */
  private static List<Path> candidates(Path dir, String sub, DirTest test) throws IOException {
    List<Path> out = new ArrayList<>();
    if (test.test(dir)) {
      out.add(dir);
    }
    Path child = dir.resolve(sub);
    if (Files.isDirectory(child) && test.test(child)) {
      out.add(child);
    }
    return out;
  }

  private static boolean holdsSegments(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.anyMatch(p -> SegmentFileName.parse(p).isPresent());
    }
  }
}
