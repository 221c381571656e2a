package io.docstore.index.manifest;

import io.docstore.index.file.FileHeader;
import io.docstore.index.file.FileNames;
import io.docstore.io.AtomicFiles;
import io.docstore.io.Checksums;
import io.docstore.io.CorruptionException;
import io.docstore.io.FileSystem;
import io.docstore.io.WritableFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The durable description of an index directory: the live tables (newest first), the first WAL
 * number not yet covered by a table ({@code minLiveWal}: every WAL numbered below it is obsolete),
 * and the next unused file number. Immutable; published whole with {@link AtomicFiles#publish}.
 */
public record Manifest(long nextFileNumber, long minLiveWal, List<TableRef> tables) {

  /** A live table: its file number and entry count (the picker's size). */
  public record TableRef(long number, long entries) {}

  public Manifest {
    tables = List.copyOf(tables);
  }

  public static Manifest empty() {
    return new Manifest(1, 0, List.of());
  }

  public byte[] encode() {
    ByteBuffer b =
        ByteBuffer.allocate(
                ManifestFormat.TABLES_OFFSET
                    + tables.size() * ManifestFormat.TABLE_ENTRY_SIZE
                    + ManifestFormat.CRC_SIZE)
            .order(ByteOrder.LITTLE_ENDIAN);
    FileHeader.write(b, ManifestFormat.FORMAT, ManifestFormat.VERSION, 0, 0);
    b.putLong(nextFileNumber).putLong(minLiveWal).putInt(tables.size());
    for (TableRef t : tables) {
      b.putLong(t.number()).putLong(t.entries());
    }
    b.putInt(Checksums.crc32c(b, 0, b.position()));
    return b.array();
  }

  public static Manifest decode(ByteBuffer b, Path file) throws IOException {
    b = b.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    FileHeader.read(
        b, 0, file, ManifestFormat.FORMAT, ManifestFormat.VERSION, ManifestFormat.VERSION);
    if (b.limit() < ManifestFormat.TABLES_OFFSET + ManifestFormat.CRC_SIZE) {
      throw new CorruptionException(
          file, b.limit(), "manifest truncated to " + b.limit() + " bytes");
    }
    int count = b.getInt(ManifestFormat.TABLE_COUNT_OFFSET);
    long expectedSize =
        ManifestFormat.TABLES_OFFSET
            + (long) count * ManifestFormat.TABLE_ENTRY_SIZE
            + ManifestFormat.CRC_SIZE;
    if (count < 0 || expectedSize != b.limit()) {
      throw new CorruptionException(
          file,
          ManifestFormat.TABLE_COUNT_OFFSET,
          "table count " + count + " does not match manifest size " + b.limit());
    }
    int crcAt = b.limit() - ManifestFormat.CRC_SIZE;
    int expected = b.getInt(crcAt);
    int actual = Checksums.crc32c(b, 0, crcAt);
    if (expected != actual) {
      throw CorruptionException.checksum(file, crcAt, "manifest", expected, actual);
    }
    List<TableRef> tables = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      int at = ManifestFormat.TABLES_OFFSET + i * ManifestFormat.TABLE_ENTRY_SIZE;
      tables.add(new TableRef(b.getLong(at), b.getLong(at + 8)));
    }
    return new Manifest(
        b.getLong(ManifestFormat.NEXT_FILE_OFFSET),
        b.getLong(ManifestFormat.MIN_LIVE_WAL_OFFSET),
        tables);
  }

  /** Reads {@code dir/MANIFEST}, or returns null if there is none. */
  public static Manifest read(FileSystem fs, Path dir) throws IOException {
    Path file = dir.resolve(FileNames.MANIFEST);
    if (!fs.exists(file)) {
      return null;
    }
    try (FileChannel ch = fs.openRead(file)) {
      long size = ch.size();
      if (size > 64L << 20) {
        throw new CorruptionException(
            file, 0, "manifest of " + size + " bytes is implausibly large");
      }
      ByteBuffer b = ByteBuffer.allocate((int) size);
      while (b.hasRemaining() && ch.read(b, b.position()) >= 0) {
        // read until full
      }
      b.flip();
      return decode(b, file);
    }
  }

  /**
   * Publishes this manifest atomically: temp file, force, directory fsync, rename over {@code
   * MANIFEST}, directory fsync. This is {@link AtomicFiles#publish} plus one directory fsync before
   * the rename, so the temp file's own directory entry is durable before it replaces the old
   * manifest: a crash between rename and the last fsync then brings back the old manifest rather
   * than no manifest (the fault-injecting file system models exactly that case; see
   * docs/decisions.md).
   */
  public void publish(FileSystem fs, Path dir) throws IOException {
    Path target = dir.resolve(FileNames.MANIFEST);
    Path tmp =
        dir.resolve(
            "."
                + FileNames.MANIFEST
                + "."
                + ProcessHandle.current().pid()
                + "."
                + System.nanoTime()
                + AtomicFiles.TEMP_SUFFIX);
    try (WritableFile f = fs.create(tmp)) {
      f.write(ByteBuffer.wrap(encode()));
      f.force();
      fs.syncDirectory(dir);
    } catch (IOException e) {
      fs.delete(tmp);
      throw e;
    }
    fs.rename(tmp, target);
    fs.syncDirectory(dir);
  }
}
