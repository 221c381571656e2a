package io.docstore.queue.follow;

import io.docstore.io.FileSystem;
import io.docstore.queue.format.SegmentFileName;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * One open copy of a segment in a replica directory: the file (inode) a name pointed to when it was
 * opened. rsync replaces a file by renaming a new one over it; a copy keeps reading the inode it
 * opened, which stays whole, and {@link #current} tells whether the name now points elsewhere.
 *
 * <p>Immutable apart from its channel, which readers share (positional reads only).
 */
record SegmentCopy(long segment, Path path, boolean sealed, FileChannel channel, Object fileKey) {

  /**
   * Opens the newest copy of {@code segment} ({@code .sealed} if present, else {@code .active});
   * null if neither exists.
   */
  static SegmentCopy open(FileSystem fs, Path dir, long segment) throws IOException {
    for (boolean sealed : new boolean[] {true, false}) {
      Path p = new SegmentFileName(segment, sealed).in(dir);
      try {
        FileChannel ch = fs.openRead(p);
        Object key;
        try {
          key = Files.readAttributes(p, BasicFileAttributes.class).fileKey();
        } catch (IOException e) {
          ch.close();
          continue; // renamed or deleted between open and stat: look again
        }
        return new SegmentCopy(segment, p, sealed, ch, key);
      } catch (NoSuchFileException e) {
        // try the other name
      }
    }
    return null;
  }

  /** Whether the directory still shows this very file under the newest name for the segment. */
  boolean current(Path dir) {
    if (!sealed && Files.exists(new SegmentFileName(segment, true).in(dir))) {
      return false;
    }
    try {
      Object key = Files.readAttributes(path, BasicFileAttributes.class).fileKey();
      return key != null && key.equals(fileKey);
    } catch (IOException gone) {
      return false;
    }
  }

  /**
   * The footer of this copy if it is a hollow segment (its records reclaimed by the primary), else
   * null: a sealed file of exactly a header and a footer flagged reclaimed.
   */
  io.docstore.queue.segment.SegmentFooter hollowFooter() throws IOException {
    long size = channel.size();
    if (!sealed
        || size
            != io.docstore.queue.format.SegmentFormat.HEADER_LENGTH
                + io.docstore.queue.format.SegmentFormat.FOOTER_LENGTH) {
      return null;
    }
    var f =
        io.docstore.queue.segment.SegmentFooter.read(
            channel, path, io.docstore.queue.format.SegmentFormat.HEADER_LENGTH);
    return f.reclaimed() ? f : null;
  }

  void close() {
    try {
      channel.close();
    } catch (IOException ignored) {
      // read-only channel: nothing to lose
    }
  }
}
