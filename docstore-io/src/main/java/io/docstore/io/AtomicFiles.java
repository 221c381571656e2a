package io.docstore.io;

import java.io.IOException;
import java.nio.ByteBuffer;
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
    Path tmp = dir.resolve("." + target.getFileName() + "." + ProcessHandle.current().pid() + "."
        + System.nanoTime() + TEMP_SUFFIX);
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

  /** True for temp files left by an interrupted {@link #publish}; safe to delete at open. */
  public static boolean isTempFile(Path path) {
    String n = path.getFileName().toString();
    return n.startsWith(".") && n.endsWith(TEMP_SUFFIX);
  }
}
