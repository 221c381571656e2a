package io.docstore.service.cli;

import io.docstore.index.file.FileNames;
import io.docstore.index.tools.IndexDump;
import io.docstore.io.FileSystem;
import io.docstore.queue.follow.FollowPoint;
import io.docstore.queue.format.SegmentFileName;
import io.docstore.queue.replication.ManifestFormat;
import io.docstore.queue.replication.ReplicationManifest;
import io.docstore.queue.tools.SegmentDump;
import io.docstore.service.cache.CacheEpoch;
import io.docstore.service.inbox.InboxPoint;
import io.docstore.service.replica.ReplicaNode;
import io.docstore.service.store.CheckpointFormat;
import io.docstore.service.store.IndexCheckpoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code docstore dump FILE}: prints any docstore file in human-readable form. */
@Command(
    name = "dump",
    mixinStandardHelpOptions = true,
    description =
        "Print a docstore file: a queue segment (header, blocks, records), an index table, bloom file, WAL or MANIFEST, the index checkpoint, a replication manifest, a replica point, the cache epoch or the inbox point.")
final class DumpCommand implements Callable<Integer> {

  @Parameters(paramLabel = "FILE", description = "The file to dump.")
  Path file;

  @Option(names = "--no-records", description = "Segments: blocks only, not each record.")
  boolean noRecords;

  @Option(
      names = "--max-entries",
      defaultValue = "1000",
      description =
          "Index tables and WALs: list at most this many entries (default ${DEFAULT-VALUE}).")
  long maxEntries;

  /**
   * For a segment of a data directory: how many of its records are live (the index points to them),
   * from the store opened read-only; or why that cannot be said now.
   */
  private void printLiveness(long segment) {
    Path queue = file.toAbsolutePath().getParent();
    Path data = queue.getParent();
    if (!queue.getFileName().toString().equals("queue")
        || data == null
        || !Files.isDirectory(data.resolve("index"))) {
      return;
    }
    try (io.docstore.service.DocStore store =
        io.docstore.service.DocStore.openReadOnly(
            data, OfflineStore.storeOptions(OfflineStore.config(null, data)))) {
      for (io.docstore.queue.SegmentSummary s : store.queueSegments()) {
        if (s.number() == segment) {
          long live = store.liveRecords().live(segment);
          System.out.printf(
              "live records: %d of %d (%.1f%% garbage: overwritten versions and deletes)%n",
              live,
              s.records(),
              s.records() == 0 ? 0.0 : 100.0 * (s.records() - live) / s.records());
        }
      }
    } catch (java.io.IOException | RuntimeException e) {
      System.out.println("live records: not known (" + e.getMessage() + ")");
    }
  }

  @Override
  public Integer call() throws Exception {
    if (!Files.isRegularFile(file)) {
      System.err.println("dump: not a file: " + file);
      return 2;
    }
    FileSystem fs = FileSystem.real();
    if (SegmentFileName.parse(file).isPresent()) {
      boolean ok = SegmentDump.dump(fs, file, System.out, !noRecords);
      printLiveness(SegmentFileName.parse(file).get().segment());
      return ok ? 0 : 1;
    }
    String name = file.getFileName().toString();
    Path dir = file.toAbsolutePath().getParent();
    switch (name) {
      case CheckpointFormat.FILE_NAME -> {
        System.out.println(
            "index checkpoint "
                + file
                + ": indexed through sequence "
                + IndexCheckpoint.read(fs, dir));
        return 0;
      }
      case ManifestFormat.FILE_NAME -> {
        System.out.println(
            "replication manifest " + file + ": " + ReplicationManifest.read(fs, dir));
        return 0;
      }
      case CacheEpoch.FILE_NAME -> {
        System.out.println("cache epoch " + file + ": " + CacheEpoch.read(fs, dir));
        return 0;
      }
      case InboxPoint.FILE_NAME -> {
        System.out.println("inbox point " + file + ": " + InboxPoint.read(fs, dir));
        return 0;
      }
      case ReplicaNode.POINT_FILE -> {
        System.out.println("replica point " + file + ": " + FollowPoint.read(fs, file));
        return 0;
      }
      default -> {
        // a segment or an index file, below
      }
    }
    if (FileNames.parse(file) != null || name.equals(FileNames.MANIFEST)) {
      IndexDump.dump(fs, file, System.out, maxEntries);
      return 0;
    }
    System.err.println("dump: not a docstore file name: " + file.getFileName());
    return 2;
  }
}
