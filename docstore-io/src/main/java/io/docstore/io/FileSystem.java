package io.docstore.io;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.List;

/**
 * The seam every durable file operation goes through (create, append, force, rename, directory
 * fsync, delete, truncate), so tests can drop unsynced data or inject faults. Reads go through
 * {@link #openRead} so a fault-injecting implementation sees them too.
 *
 * <p>Implementations are thread-safe. Every method either does what it says or throws; a rename
 * that did not happen is never silently ignored.
 */
public interface FileSystem {

  /** The real file system. */
  static FileSystem real() {
    return RealFileSystem.INSTANCE;
  }

  /**
   * Creates a new, empty file for appending; fails if it exists. Not durable until the directory is
   * synced.
   */
  WritableFile create(Path path) throws IOException;

  /** Opens an existing file for appending at its current end. */
  WritableFile openAppend(Path path) throws IOException;

  /** Opens a file for positional reads. */
  FileChannel openRead(Path path) throws IOException;

  /**
   * Atomically renames {@code source} to {@code target}, replacing it. Durable after {@link
   * #syncDirectory}.
   */
  void rename(Path source, Path target) throws IOException;

  /** Forces the directory entry changes (create, rename, delete) of {@code dir} to disk. */
  void syncDirectory(Path dir) throws IOException;

  /** Deletes the file if it exists. Durable after {@link #syncDirectory}. */
  void delete(Path path) throws IOException;

  /** Truncates an existing file to {@code size} bytes and forces it. */
  void truncate(Path path, long size) throws IOException;

  /** Creates the directory and any missing parents, syncing each parent whose entries changed. */
  void createDirectories(Path dir) throws IOException;

  /** Lists the entries of a directory, sorted by name. */
  List<Path> list(Path dir) throws IOException;

  boolean exists(Path path);

  long size(Path path) throws IOException;

  /** Bytes still available to this process on the file store holding {@code path}. */
  long usableSpace(Path path) throws IOException;
}
