package io.docstore.index.tools;

import io.docstore.index.bloom.BloomFormat;
import io.docstore.index.file.FileHeader;
import io.docstore.index.file.FileNames;
import io.docstore.index.manifest.Manifest;
import io.docstore.index.table.EntryIterator;
import io.docstore.index.table.Table;
import io.docstore.index.wal.WalReader;
import io.docstore.io.Checksums;
import io.docstore.io.CorruptionException;
import io.docstore.io.FileSystem;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Checks every checksum of an index directory without opening the index: the manifest, every live
 * table (header, trailer, every page, id order, entry count), every bloom file (header, trailer,
 * every page) and every WAL file (records and sync marks; a torn tail of the newest WAL is normal
 * after a crash and is not reported, since recovery drops it, unless a sync mark after it says the
 * damaged bytes had been fsynced). Read-only. An empty result means healthy.
 */
public final class IndexVerifier {

  /** One problem: the file, the byte offset (or -1 if not known) and what is wrong. */
  public record Problem(Path file, long offset, String message) {
    @Override
    public String toString() {
      return file + (offset >= 0 ? " at offset " + offset : "") + ": " + message;
    }
  }

  private IndexVerifier() {}

  public static List<Problem> verify(FileSystem fs, Path dir) throws IOException {
    List<Problem> problems = new ArrayList<>();
    Manifest manifest;
    try {
      manifest = Manifest.read(fs, dir);
    } catch (CorruptionException e) {
      problems.add(new Problem(e.file(), e.offset(), e.getMessage()));
      return problems;
    }
    if (manifest == null) {
      problems.add(new Problem(dir.resolve(FileNames.MANIFEST), -1, "no manifest"));
      return problems;
    }
    for (Manifest.TableRef ref : manifest.tables()) {
      verifyTable(fs, FileNames.path(dir, FileNames.Kind.TABLE, ref.number()), ref, problems);
      verifyBloom(fs, FileNames.path(dir, FileNames.Kind.BLOOM, ref.number()), problems);
    }
    TreeSet<Long> wals = new TreeSet<>();
    for (Path p : fs.list(dir)) {
      FileNames.Parsed n = FileNames.parse(p);
      if (n != null && n.kind() == FileNames.Kind.WAL && n.number() >= manifest.minLiveWal()) {
        wals.add(n.number());
      }
    }
    for (long w : wals) {
      Path wp = FileNames.path(dir, FileNames.Kind.WAL, w);
      try {
        WalReader.replay(fs, wp, w == wals.last(), (id, v) -> {});
      } catch (CorruptionException e) {
        problems.add(new Problem(e.file(), e.offset(), e.getMessage()));
      }
    }
    return problems;
  }

  private static void verifyTable(
      FileSystem fs, Path path, Manifest.TableRef ref, List<Problem> problems) throws IOException {
    if (!fs.exists(path)) {
      problems.add(new Problem(path, -1, "table listed in the manifest is missing"));
      return;
    }
    Table t = null;
    try {
      t = Table.open(fs, path, ref.number(), null);
      if (t.entryCount() != ref.entries()) {
        problems.add(
            new Problem(
                path, -1, "holds " + t.entryCount() + " entries, manifest says " + ref.entries()));
      }
      long n = 0;
      long last = -1;
      try (EntryIterator it = t.iterator(0)) {
        while (it.next()) {
          if (it.id() <= last) {
            problems.add(new Problem(path, -1, "id " + it.id() + " out of order after " + last));
            return;
          }
          last = it.id();
          n++;
        }
      }
      if (n != t.entryCount()) {
        problems.add(
            new Problem(path, -1, "iterated " + n + " entries, trailer says " + t.entryCount()));
      }
    } catch (CorruptionException e) {
      problems.add(new Problem(e.file(), e.offset(), e.getMessage()));
    } finally {
      if (t != null) {
        t.release();
      }
    }
  }

  private static void verifyBloom(FileSystem fs, Path path, List<Problem> problems)
      throws IOException {
    if (!fs.exists(path)) {
      problems.add(new Problem(path, -1, "bloom file listed in the manifest is missing"));
      return;
    }
    ByteBuffer all;
    try (FileChannel ch = fs.openRead(path)) {
      all = ByteBuffer.allocate((int) ch.size()).order(ByteOrder.LITTLE_ENDIAN);
      while (all.hasRemaining() && ch.read(all, all.position()) >= 0) {
        // read the whole file
      }
      all.flip();
    }
    try {
      FileHeader.read(
          all, 0, path, BloomFormat.FORMAT, BloomFormat.MIN_VERSION, BloomFormat.VERSION);
      int size = all.limit();
      if (size < BloomFormat.FIRST_PAGE_OFFSET + BloomFormat.TRAILER_SIZE) {
        throw new CorruptionException(path, size, "bloom file truncated");
      }
      int pages = all.getInt(size - BloomFormat.TRAILER_SIZE + BloomFormat.T_PAGE_COUNT);
      long crcsAt = BloomFormat.pageOffset(Math.max(0, pages));
      if (pages < 1 || crcsAt + 4L * pages + BloomFormat.TRAILER_SIZE != size) {
        throw new CorruptionException(
            path,
            size - BloomFormat.TRAILER_SIZE,
            "page count " + pages + " does not match file size " + size);
      }
      int expected = all.getInt(size - 4);
      int actual = Checksums.crc32c(all, (int) crcsAt, size - 4 - (int) crcsAt);
      if (expected != actual) {
        throw CorruptionException.checksum(path, size - 4, "bloom trailer", expected, actual);
      }
      for (int p = 0; p < pages; p++) {
        int e = all.getInt((int) crcsAt + 4 * p);
        int a = Checksums.crc32c(all, (int) BloomFormat.pageOffset(p), BloomFormat.PAGE_SIZE);
        if (e != a) {
          problems.add(
              new Problem(
                  path,
                  BloomFormat.pageOffset(p),
                  String.format(
                      "bloom page %d checksum mismatch (expected %08x, actual %08x)", p, e, a)));
        }
      }
    } catch (CorruptionException e) {
      problems.add(new Problem(e.file(), e.offset(), e.getMessage()));
    }
  }
}
