package io.docstore.service.cli;

import io.docstore.index.file.FileNames;
import io.docstore.index.tools.IndexDump;
import io.docstore.io.FileSystem;
import io.docstore.queue.format.SegmentFileName;
import io.docstore.queue.tools.SegmentDump;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code docstore dump FILE}: prints any docstore file in human-readable form. */
@Command(name = "dump", mixinStandardHelpOptions = true,
    description = "Print a docstore file: a queue segment (header, blocks, records), an index table, bloom file, WAL or MANIFEST.")
final class DumpCommand implements Callable<Integer> {

  @Parameters(paramLabel = "FILE", description = "The file to dump.")
  Path file;

  @Option(names = "--no-records", description = "Segments: blocks only, not each record.")
  boolean noRecords;

  @Option(names = "--max-entries", defaultValue = "1000",
      description = "Index tables and WALs: list at most this many entries (default ${DEFAULT-VALUE}).")
  long maxEntries;

  @Override
  public Integer call() throws Exception {
    if (!Files.isRegularFile(file)) {
      System.err.println("dump: not a file: " + file);
      return 2;
    }
    if (SegmentFileName.parse(file).isPresent()) {
      return SegmentDump.dump(FileSystem.real(), file, System.out, !noRecords) ? 0 : 1;
    }
    if (FileNames.parse(file) != null || file.getFileName().toString().equals(FileNames.MANIFEST)) {
      IndexDump.dump(FileSystem.real(), file, System.out, maxEntries);
      return 0;
    }
    System.err.println("dump: not a docstore file name: " + file.getFileName());
    return 2;
  }
}
