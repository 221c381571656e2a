package io.docstore.index.tools;

import io.docstore.index.bloom.BloomFormat;
import io.docstore.index.file.FileHeader;
import io.docstore.index.file.FileNames;
import io.docstore.index.manifest.Manifest;
import io.docstore.index.table.EntryIterator;
import io.docstore.index.table.Table;
import io.docstore.index.table.TableFormat;
import io.docstore.index.wal.WalFormat;
import io.docstore.index.wal.WalReader;
import io.docstore.io.FileSystem;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Prints any lsm-index file in readable form: a table (trailer summary and entries), a bloom file
 * of either format version (geometry, bits per key, per-page fill and, for version 2, the emptiest
 * and fullest 64-byte block of each page), a WAL (entries and sync marks in log order, and any torn
 * tail) or the manifest. The kind is taken from the file name. Read-only; corruption surfaces as
 * the exception naming file and offset.
 */
public final class IndexDump {

  private IndexDump() {}

  /** Dumps {@code file}; at most {@code maxEntries} entries are listed for tables and WALs. */
  public static void dump(FileSystem fs, Path file, PrintStream out, long maxEntries)
      throws IOException {
    if (file.getFileName().toString().equals(FileNames.MANIFEST)) {
      Manifest m = Manifest.read(fs, file.toAbsolutePath().getParent());
      out.println(
          "manifest "
              + file
              + ": format "
              + io.docstore.index.manifest.ManifestFormat.FORMAT
              + " v"
              + io.docstore.index.manifest.ManifestFormat.VERSION);
      out.println(
          "  nextFileNumber="
              + m.nextFileNumber()
              + " minLiveWal="
              + m.minLiveWal()
              + " tables="
              + m.tables().size());
      for (Manifest.TableRef t : m.tables()) {
        out.println("  table " + t.number() + " entries=" + t.entries());
      }
      return;
    }
    FileNames.Parsed n = FileNames.parse(file);
    if (n == null) {
      throw new IOException(
          file + ": not an lsm-index file name (expected NNNNNNNNNN.idx/.bloom/.wal or MANIFEST)");
    }
    switch (n.kind()) {
      case TABLE -> dumpTable(fs, file, n.number(), out, maxEntries);
      case BLOOM -> dumpBloom(fs, file, out);
      case WAL -> dumpWal(fs, file, out, maxEntries);
    }
  }

  private static void dumpTable(FileSystem fs, Path file, long number, PrintStream out, long max)
      throws IOException {
    Table t = Table.open(fs, file, number, null);
    try {
      out.println("table " + file + ": format " + TableFormat.FORMAT + " v" + TableFormat.VERSION);
      out.println(
          "  entries="
              + t.entryCount()
              + " tombstones="
              + t.tombstones()
              + " pages="
              + t.pageCount()
              + " minId="
              + t.minId()
              + " maxId="
              + t.maxId()
              + " bytes="
              + t.bytes());
      long shown = 0;
      try (EntryIterator it = t.iterator(0)) {
        while (shown < max && it.next()) {
          out.println(
              "  "
                  + it.id()
                  + " -> "
                  + (it.value() == TableFormat.TOMBSTONE
                      ? "tombstone"
                      : Long.toString(it.value())));
          shown++;
        }
      }
      if (shown < t.entryCount()) {
        out.println("  ... " + (t.entryCount() - shown) + " more");
      }
    } finally {
      t.release();
    }
  }

  private static void dumpBloom(FileSystem fs, Path file, PrintStream out) throws IOException {
    try (FileChannel ch = fs.openRead(file)) {
      ByteBuffer all = ByteBuffer.allocate((int) ch.size()).order(ByteOrder.LITTLE_ENDIAN);
      while (all.hasRemaining() && ch.read(all, all.position()) >= 0) {
        // read the whole file
      }
      all.flip();
      FileHeader.Header h =
          FileHeader.read(
              all, 0, file, BloomFormat.FORMAT, BloomFormat.MIN_VERSION, BloomFormat.VERSION);
      int size = all.limit();
      int pages = all.getInt(size - BloomFormat.TRAILER_SIZE + BloomFormat.T_PAGE_COUNT);
      long keys = all.getLong(size - BloomFormat.TRAILER_SIZE + BloomFormat.T_KEYS);
      boolean blocked = h.version() >= 2;
      out.println(
          "bloom "
              + file
              + ": format "
              + BloomFormat.FORMAT
              + " v"
              + h.version()
              + " pageBytes="
              + h.param1()
              + (blocked ? " blockBytes=" + BloomFormat.BLOCK_SIZE : "")
              + " probes="
              + h.param2()
              + " pages="
              + pages
              + " keys="
              + keys
              + String.format(
                  " bitsPerKey=%.2f", pages * (double) BloomFormat.PAGE_BITS / Math.max(1, keys)));
      for (int p = 0; p < pages && BloomFormat.pageOffset(p + 1) <= size; p++) {
        int ones = 0;
        int minBlock = Integer.MAX_VALUE;
        int maxBlock = 0;
        for (int blockAt = 0; blockAt < BloomFormat.PAGE_SIZE; blockAt += BloomFormat.BLOCK_SIZE) {
          int inBlock = 0;
          for (int i = 0; i < BloomFormat.BLOCK_SIZE; i += 8) {
            inBlock += Long.bitCount(all.getLong((int) BloomFormat.pageOffset(p) + blockAt + i));
          }
          ones += inBlock;
          minBlock = Math.min(minBlock, inBlock);
          maxBlock = Math.max(maxBlock, inBlock);
        }
        if (blocked) {
          // A key's probes stay in one block: the fullest block answers "maybe" most often.
          out.printf(
              "  page %d fill=%.3f blockFill=%.3f..%.3f%n",
              p,
              ones / (double) BloomFormat.PAGE_BITS,
              minBlock / (double) BloomFormat.BLOCK_BITS,
              maxBlock / (double) BloomFormat.BLOCK_BITS);
        } else {
          out.printf("  page %d fill=%.3f%n", p, ones / (double) BloomFormat.PAGE_BITS);
        }
      }
    }
  }

  private static void dumpWal(FileSystem fs, Path file, PrintStream out, long max)
      throws IOException {
    List<String> lines = new ArrayList<>();
    long[] shown = new long[1];
    WalReader.Result r =
        WalReader.replay(
            fs,
            file,
            true,
            new WalReader.Sink() {
              @Override
              public void accept(long id, long v) {
                if (shown[0]++ < max) {
                  lines.add(
                      "  "
                          + id
                          + " -> "
                          + (v == TableFormat.TOMBSTONE ? "tombstone" : Long.toString(v)));
                }
              }

              @Override
              public void mark(long offset, long syncedEnd) {
                if (shown[0] < max) {
                  lines.add("  @" + offset + " sync mark: bytes before " + syncedEnd + " fsynced");
                }
              }
            });
    out.println(
        "wal "
            + file
            + ": format "
            + WalFormat.FORMAT
            + (r.version() > 0 ? " v" + r.version() : " (torn create: no whole header)"));
    lines.forEach(out::println);
    out.println(
        "  entries="
            + r.entries()
            + " marks="
            + r.marks()
            + " validBytes="
            + r.validBytes()
            + (r.droppedBytes() > 0
                ? " tornTail="
                    + r.droppedBytes()
                    + " bytes ("
                    + r.dropReason()
                    + (r.laterRecordsVerify()
                        ? "; later records verify: written back before earlier ones"
                        : "")
                    + ")"
                : ""));
  }
}
