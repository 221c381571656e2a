package io.docstore.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Publishes small state files (manifests, checkpoints) the one durable way: write a temp file in
 * the same directory, force it, rename it over the target, fsync the directory. A reader sees
 * either the old or the new content, never a mix, and after the call returns a crash cannot bring
 * the old content back.
 */
public final class AtomicFiles {

  /** Suffix of temp files; every name parser in docstore ignores names ending with it. */
  public static final String TEMP_SUFFIX = ".tmp";

  private AtomicFiles() {}

  public static void publish(FileSystem fs, Path target, byte[] content) throws IOException {
    Path dir = target.toAbsolutePath().getParent();
    Path tmp =
        dir.resolve(
            "."
                + target.getFileName()
                + "."
                + ProcessHandle.current().pid()
                + "."
                + System.nanoTime()
                + TEMP_SUFFIX);
    try (WritableFile f = fs.create(tmp)) {
      f.write(ByteBuffer.wrap(content));
      f.force();
    } catch (IOException e) {
      fs.delete(tmp);
      throw e;
    }
    fs.rename(tmp, target);
    fs.syncDirectory(dir);
  }

  /**
   * Publishes a file written in full under a temp name in the target's directory (one too large to
   * hold in memory, such as a segment copied from a peer) the same durable way: forces {@code
   * temp}, renames it over {@code target}, fsyncs the directory. A reader sees the old file or the
   * new one, never a mix.
   */
  public static void replace(FileSystem fs, Path temp, Path target) throws IOException {
    Path dir = target.toAbsolutePath().getParent();
    if (!temp.toAbsolutePath().getParent().equals(dir)) {
      throw new IllegalArgumentException(temp + " is not in the directory of " + target);
    }
    try (WritableFile f = fs.openAppend(temp)) {
      f.force();
    }
    fs.rename(temp, target);
    fs.syncDirectory(dir);
  }

  /**
   * Reads a small state file of a fixed {@code length} whole, or returns null if there is none.
   *
   * @throws CorruptionException if the file has another size ({@code what} names it in the message)
   */
  public static byte[] readFixed(FileSystem fs, Path file, int length, String what)
      throws IOException {
    if (!fs.exists(file)) {
      return null;
    }
    try (FileChannel ch = fs.openRead(file)) {
      long size = ch.size();
      if (size != length) {
        throw new CorruptionException(file, 0, what + " is " + size + " bytes, expected " + length);
      }
      ByteBuffer buf = ByteBuffer.allocate(length);
      while (buf.hasRemaining()) {
        if (ch.read(buf, buf.position()) < 0) {
          throw new CorruptionException(file, buf.position(), what + " ends early");
        }
      }
      return buf.array();
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  /** True for temp files left by an interrupted {@link #publish}; safe to delete at open. */
  public static boolean isTempFile(Path path) {
    String n = path.getFileName().toString();
    return n.startsWith(".") && n.endsWith(TEMP_SUFFIX);
  }
}
