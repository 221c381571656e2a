package io.docstore.service.cli;

import io.docstore.queue.format.SegmentFileName;
import io.docstore.queue.tools.Problem;
import io.docstore.queue.tools.QueueVerifier;
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
 * {@code docstore verify DIR}: checks every checksum of a data directory (its {@code queue/}
 * subdirectory, or DIR itself when it holds segments). Prints one line per problem (file, offset,
 * what) and exits 1 if there is any, 0 when all is well. Run it on a stopped store.
 */
@Command(name = "verify", mixinStandardHelpOptions = true,
    description = "Check every block, footer and checksum under a data directory; exit 1 on any problem.")
final class VerifyCommand implements Callable<Integer> {

  @Parameters(paramLabel = "DIR", description = "A data directory, or a queue directory.")
  Path dir;

  @Override
  public Integer call() throws Exception {
    if (!Files.isDirectory(dir)) {
      System.err.println("verify: not a directory: " + dir);
      return 2;
    }
    List<String> problems = new ArrayList<>();
    int checked = 0;
    for (Path queueDir : queueDirs(dir)) {
      checked++;
      for (Problem p : QueueVerifier.verify(queueDir)) {
        problems.add(p.toString());
      }
    }
    if (checked == 0) {
      System.err.println("verify: no docstore data under " + dir);
      return 2;
    }
    problems.forEach(System.out::println);
    System.out.println(problems.isEmpty() ? "verify: OK" : "verify: " + problems.size() + " problem(s)");
    return problems.isEmpty() ? 0 : 1;
  }

  private static List<Path> queueDirs(Path dir) throws IOException {
    List<Path> out = new ArrayList<>();
    if (holdsSegments(dir)) {
      out.add(dir);
    }
    Path sub = dir.resolve("queue");
    if (Files.isDirectory(sub) && holdsSegments(sub)) {
      out.add(sub);
    }
    return out;
  }

  private static boolean holdsSegments(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.anyMatch(p -> SegmentFileName.parse(p).isPresent());
    }
  }
}
