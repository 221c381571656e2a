package io.docstore.service.inbox;

import io.docstore.io.AtomicFiles;
import io.docstore.io.CorruptionException;
import io.docstore.io.FileSystem;
import io.docstore.queue.format.StateFileLayout;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.concurrent.TimeUnit;

/**
 * Where the inbox stands in the file it is applying (file {@value #FILE_NAME} in the data
 * directory; spec in {@code docs/formats/inbox-point.md}): the file's identity, the byte offset
 * before which every line is applied, and a queue sequence that separates the records of those
 * lines (at or below it) from the records of the file's later lines (above it).
 *
 * @param file the file being applied
 * @param offset every line that ends at or before this byte of the file is applied (durable)
 * @param sequence every record of those lines has a sequence at most this; every record of a later
 *     line of the file gets a higher one
 */
public record InboxPoint(FileId file, long offset, long sequence) {

  /** The file's name in the data directory. */
  public static final String FILE_NAME = "inbox.point";

  static final int DEVICE = StateFileLayout.FIELDS;
  static final int INODE = DEVICE + 8;
  static final int SIZE = INODE + 8;
  static final int MODIFIED = SIZE + 8;
  static final int OFFSET = MODIFIED + 8;
  static final int SEQUENCE = OFFSET + 8;
  static final int CRC = SEQUENCE + 8;
  static final int LENGTH = CRC + 4;
  static final StateFileLayout LAYOUT =
      new StateFileLayout(0xD0C5_1B0C, "docstore.inboxpt", 1, LENGTH, "inbox point");

  /**
   * The identity of an inbox file: device and inode (0 and 0 where the file system has none), size
   * and modification time. A file is never changed once it is in the inbox, so another file under
   * the same name differs in inode (the old one still exists in {@code done/}), or else in size or
   * modification time.
   */
  public record FileId(long device, long inode, long size, long modifiedNanos) {

    static FileId of(Path f) throws IOException {
      BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class);
      // A file system without device and inode (not Unix): by design the identity is then size and
      // modification time alone (docs/formats/inbox-point.md).
      boolean unix = f.getFileSystem().supportedFileAttributeViews().contains("unix");
      long device = unix ? ((Number) Files.getAttribute(f, "unix:dev")).longValue() : 0;
      long inode = unix ? ((Number) Files.getAttribute(f, "unix:ino")).longValue() : 0;
      return new FileId(device, inode, a.size(), a.lastModifiedTime().to(TimeUnit.NANOSECONDS));
    }

    @Override
    public String toString() {
      return "device "
          + device
          + ", inode "
          + inode
          + ", "
          + size
          + " bytes, modified at "
          + modifiedNanos
          + " ns";
    }
  }

  /**
   * The point stored in {@code dataDir}, or null if there is none.
   *
   * @throws CorruptionException naming the file and offset if it is damaged
   */
  public static InboxPoint read(FileSystem fs, Path dataDir) throws IOException {
    Path path = dataDir.resolve(FILE_NAME);
    byte[] bytes = AtomicFiles.readFixed(fs, path, LENGTH, LAYOUT.what());
    if (bytes == null) {
      return null;
    }
    ByteBuffer b = LAYOUT.check(path, bytes);
    InboxPoint p =
        new InboxPoint(
            new FileId(b.getLong(DEVICE), b.getLong(INODE), b.getLong(SIZE), b.getLong(MODIFIED)),
            b.getLong(OFFSET),
            b.getLong(SEQUENCE));
    if (p.offset < 0 || p.offset > p.file.size() || p.sequence < 0) {
      throw new CorruptionException(path, OFFSET, "impossible inbox point: " + p);
    }
    return p;
  }

  /** Replaces the point in {@code dataDir} durably ({@link AtomicFiles#publish}). */
  void publish(FileSystem fs, Path dataDir) throws IOException {
    ByteBuffer b = LAYOUT.begin();
    b.putLong(DEVICE, file.device());
    b.putLong(INODE, file.inode());
    b.putLong(SIZE, file.size());
    b.putLong(MODIFIED, file.modifiedNanos());
    b.putLong(OFFSET, offset);
    b.putLong(SEQUENCE, sequence);
    AtomicFiles.publish(fs, dataDir.resolve(FILE_NAME), LAYOUT.seal(b));
  }

  /** Removes the point from {@code dataDir} durably: no file is in progress. */
  static void remove(FileSystem fs, Path dataDir) throws IOException {
    fs.delete(dataDir.resolve(FILE_NAME));
    fs.syncDirectory(dataDir);
  }

  @Override
  public String toString() {
    return "file ("
        + file
        + "): applied before byte "
        + offset
        + ", its records at or below sequence "
        + sequence;
  }
}
