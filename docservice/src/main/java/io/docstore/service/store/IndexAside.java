package io.docstore.service.store;

import io.docstore.io.CorruptionException;
import io.docstore.io.FileSystem;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A damaged or replaced index moved aside into {@code index.damaged-<millis>/} of the data
 * directory, and put back when a rebuild must leave the store as it found it (docs/reliability.md,
 * "Damaged segments"; the index is derived from the queue, decision "Index damage is repaired from
 * the queue").
 */
public final class IndexAside {

  private IndexAside() {}

  /**
   * Moves a damaged index ({@code index/} and {@code index.checkpoint}) into a new directory {@code
   * index.damaged-<millis>/} of {@code dir}, so that the next open starts an empty index at
   * checkpoint 0 and re-indexes the whole queue. The checkpoint goes first: a crash in between
   * leaves a store with no checkpoint (full re-index) whose damaged index is moved on the next
   * open.
   *
   * @return the directory holding the damaged files
   */
  public static Path move(FileSystem fs, Path dir, long nowMillis) throws IOException {
    Path aside = dir.resolve("index.damaged-" + nowMillis);
    fs.createDirectories(aside);
    Path checkpoint = dir.resolve(CheckpointFormat.FILE_NAME);
    if (fs.exists(checkpoint)) {
      fs.rename(checkpoint, aside.resolve(CheckpointFormat.FILE_NAME));
      fs.syncDirectory(dir);
    }
    Path index = dir.resolve("index");
    if (fs.exists(index)) {
      fs.rename(index, aside.resolve("index"));
    }
    fs.syncDirectory(aside);
    fs.syncDirectory(dir);
    return aside;
  }

  /** The failure a rebuild that met queue damage reports, with what to do next. */
  public static CorruptionException rebuildStopped(
      Path dir, CorruptionException e, boolean skipping) {
    return new CorruptionException(
        dir.resolve("queue"),
        0,
        (skipping
                ? "rebuilding the index cannot go on past this damage even when skipping damaged"
                    + " blocks ("
                : "rebuilding the index stopped at damaged queue data (")
            + e.getMessage()
            + "); the index from before the rebuild is back in place, so the store is as it was"
            + " before the rebuild. Repair the damaged segment from a peer (docstore"
            + " repair-segments --from ...)"
            + (skipping
                ? ""
                : ", or as the last resort index around the damage (docstore rebuild-index"
                    + " --skip-damaged)")
            + "; see docs/reliability.md, \"Damaged segments\"");
  }

  /**
   * Undoes {@link #move}: removes the partial index a failed rebuild wrote and moves the old index
   * and checkpoint back from {@code aside}.
   */
  public static void putBack(FileSystem fs, Path dir, Path aside) throws IOException {
    Path index = dir.resolve("index");
    if (fs.exists(index)) {
      Path partial = dir.resolve("index.partial-" + System.currentTimeMillis());
      fs.rename(index, partial);
      deleteTree(fs, partial);
    }
    if (fs.exists(aside.resolve("index"))) {
      fs.rename(aside.resolve("index"), index);
    }
    Path checkpoint = dir.resolve(CheckpointFormat.FILE_NAME);
    if (fs.exists(aside.resolve(CheckpointFormat.FILE_NAME))) {
      fs.rename(aside.resolve(CheckpointFormat.FILE_NAME), checkpoint);
    } else if (fs.exists(checkpoint)) {
      fs.delete(checkpoint); // the failed rebuild's own
    }
    fs.syncDirectory(dir);
    if (fs.exists(aside.resolve(SalvageRebuild.REPORT_FILE))) {
      fs.delete(aside.resolve(SalvageRebuild.REPORT_FILE));
    }
    fs.delete(aside);
    fs.syncDirectory(dir);
  }

  private static void deleteTree(FileSystem fs, Path d) throws IOException {
    for (Path p : fs.list(d)) {
      fs.delete(p);
    }
    fs.delete(d);
  }
}
