package io.docstore.service.replica;

import io.docstore.queue.format.SegmentFileName;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.stream.Stream;

/** What a pull's rsync does to a replica's queue copy, without rsync (for ingester tests). */
final class RsyncLikeCopy {

  private RsyncLikeCopy() {}

  /**
   * Copies the segments and the replication manifest of queue directory {@code from} into {@code
   * to}: each changed file as a whole new file renamed in; files gone from {@code from} deleted.
   */
  static void pull(Path from, Path to) throws IOException {
    List<Path> files;
    try (Stream<Path> s = Files.list(from)) {
      files = s.sorted().toList();
    }
    for (Path f : files) {
      String name = f.getFileName().toString();
      if (!name.equals("replication.manifest") && SegmentFileName.parse(f).isEmpty()) {
        continue;
      }
      Path target = to.resolve(name);
      if (Files.exists(target) && Files.mismatch(target, f) == -1) {
        continue;
      }
      Path temp = to.resolve("." + name + ".Xy12Zw");
      Files.copy(f, temp, StandardCopyOption.REPLACE_EXISTING);
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
    try (Stream<Path> s = Files.list(to)) {
      for (Path r : s.toList()) {
        if (!Files.exists(from.resolve(r.getFileName()))) {
          Files.delete(r);
        }
      }
    }
  }
}
