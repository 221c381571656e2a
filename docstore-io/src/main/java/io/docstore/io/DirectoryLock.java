package io.docstore.io;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An exclusive lock on a data directory (a {@code LOCK} file held with an OS file lock), so that
 * two writers, in two processes or twice in one, never open the same files. The OS drops the lock
 * when the process dies, so a crash never leaves a stale lock behind. The {@code LOCK} file itself
 * is empty and never deleted; name parsers ignore it.
 */
public final class DirectoryLock implements Closeable {

  public static final String FILE_NAME = "LOCK";

  private final FileChannel channel;
  private final FileLock lock;

  private DirectoryLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Takes the lock of {@code dir} (which must exist).
   *
   * @throws IOException naming the directory if another holder has it
   */
  public static DirectoryLock acquire(Path dir) throws IOException {
    Path file = dir.resolve(FILE_NAME);
    FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock lock;
    try {
      lock = ch.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null;
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
    if (lock == null) {
      ch.close();
      throw new IOException(dir + " is in use by another docstore writer (" + file + " is locked)");
    }
    return new DirectoryLock(ch, lock);
  }

  /** Releases the lock. Idempotent. */
  @Override
  public synchronized void close() throws IOException {
    if (!channel.isOpen()) {
      return;
    }
    try {
      lock.release();
    } finally {
      channel.close();
    }
  }
}
