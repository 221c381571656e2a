package io.docstore.queue.segment;

import static io.docstore.queue.format.SegmentFormat.HEADER_LENGTH;

import io.docstore.io.FileSystem;
import io.docstore.io.KillPoints;
import io.docstore.io.WritableFile;
import io.docstore.queue.format.SegmentFileName;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * Replaces a sealed segment by its hollow form: the header and a footer flagged {@code reclaimed}
 * that keeps the segment's sequence range, no block (docs/formats/segment.md, "Hollow segments").
 * Written beside it as {@code seg-N.sealed.tmp} (a name the queue ignores), forced, renamed over
 * it, the directory fsynced: a crash leaves the old segment or the hollow one, and at most a
 * temporary file, which the next hollowing of that segment replaces. Kill points {@code
 * queue.reclaim.beforeRename} and {@code queue.reclaim.afterRename}.
 */
public final class HollowSegment {

  private HollowSegment() {}

  /**
   * Hollows sealed segment {@code victim} of the queue in {@code dir}; returns the hollow segment,
   * opened. The victim's own channel and mapping stay usable (its file is unlinked, not truncated)
   * until the caller closes them.
   */
  public static SegmentInfo replace(FileSystem fs, Path dir, SegmentInfo victim)
      throws IOException {
    if (!victim.sealed() || victim.reclaimed()) {
      throw new IllegalArgumentException(
          "segment " + victim.number() + " is " + (victim.sealed() ? "hollow already" : "active"));
    }
    Path sealed = new SegmentFileName(victim.number(), true).in(dir);
    Path tmp = sealed.resolveSibling(sealed.getFileName() + ".tmp");
    SegmentFooter footer = SegmentFooter.hollow(victim.baseSequence(), victim.lastSequence());
    // A crash before the rename leaves the temporary file: this try replaces it (without this,
    // every
    // later pass failed on it and the segment was never reclaimed).
    fs.delete(tmp);
    try (WritableFile f = fs.create(tmp)) {
      f.write(new SegmentHeader(victim.number(), victim.baseSequence()).encode());
      f.write(footer.encode());
      f.force();
    }
    KillPoints.reach("queue.reclaim.beforeRename");
    fs.rename(tmp, sealed);
    KillPoints.reach("queue.reclaim.afterRename");
    fs.syncDirectory(dir);
    FileChannel ch = fs.openRead(sealed);
    return new SegmentInfo(
        victim.number(),
        victim.baseSequence(),
        sealed,
        ch,
        HEADER_LENGTH,
        victim.lastSequence(),
        true,
        true);
  }
}
