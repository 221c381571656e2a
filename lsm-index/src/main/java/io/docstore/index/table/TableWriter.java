package io.docstore.index.table;

import io.docstore.index.bloom.BloomBuilder;
import io.docstore.index.file.FileHeader;
import io.docstore.io.Checksums;
import io.docstore.io.FileSystem;
import io.docstore.io.WritableFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Streams entries in ascending id order into a new table file (layout in {@link TableFormat}) and
 * feeds each id to a {@link BloomBuilder}. Memory: a 256 KiB write buffer plus 12 bytes per page
 * for fences and page checksums. Single-threaded; on failure call {@link #abort}.
 */
public final class TableWriter {

  private static final int BUFFER_PAGES = 64;

  private final FileSystem fs;
  private final Path path;
  private final WritableFile file;
  private final BloomBuilder bloom;
  private final ByteBuffer buf =
      ByteBuffer.allocateDirect(BUFFER_PAGES * TableFormat.PAGE_SIZE)
          .order(ByteOrder.LITTLE_ENDIAN);
  private long[] fences = new long[64];
  private int[] crcs = new int[64];
  private int pages;
  private int inPage;
  private long entries;
  private long tombstones;
  private long minId = -1;
  private long maxId = -1;

  /** Summary of a finished table. */
  public record Info(long entries, long tombstones, long minId, long maxId, long bytes) {}

  public TableWriter(FileSystem fs, Path path, BloomBuilder bloom) throws IOException {
    this.fs = fs;
    this.path = path;
    this.bloom = bloom;
    this.file = fs.create(path);
    ByteBuffer head = ByteBuffer.allocate(TableFormat.PAGE_SIZE).order(ByteOrder.LITTLE_ENDIAN);
    FileHeader.write(
        head,
        TableFormat.FORMAT,
        TableFormat.VERSION,
        TableFormat.PAGE_SIZE,
        TableFormat.ENTRY_SIZE);
    head.clear();
    try {
      file.write(head);
    } catch (IOException e) {
      abort();
      throw e;
    }
  }

  public Path path() {
    return path;
  }

  public long entries() {
    return entries;
  }

  /** Appends an entry; ids must be strictly ascending. */
  public void add(long id, long value) throws IOException {
    if (id <= maxId && entries > 0) {
      throw new IllegalStateException("ids out of order: " + id + " after " + maxId);
    }
    if (inPage == 0) {
      if (pages == fences.length) {
        fences = Arrays.copyOf(fences, pages * 2);
        crcs = Arrays.copyOf(crcs, pages * 2);
      }
      fences[pages] = id;
    }
    buf.putLong(id).putLong(value);
    bloom.add(id);
    if (entries == 0) {
      minId = id;
    }
    maxId = id;
    entries++;
    if (value == TableFormat.TOMBSTONE) {
      tombstones++;
    }
    if (++inPage == TableFormat.ENTRIES_PER_PAGE) {
      endPage();
    }
  }

  private void endPage() throws IOException {
    int start = buf.position() - inPage * TableFormat.ENTRY_SIZE;
    while (buf.position() < start + TableFormat.PAGE_SIZE) {
      buf.put((byte) 0);
    }
    crcs[pages] = Checksums.crc32c(buf, start, TableFormat.PAGE_SIZE);
    pages++;
    inPage = 0;
    if (!buf.hasRemaining()) {
      flushBuffer();
    }
  }

  private void flushBuffer() throws IOException {
    buf.flip();
    file.write(buf);
    buf.clear();
  }

  /**
   * Writes the index block and trailer and forces the file. The caller writes the bloom file and
   * syncs the directory. Must have at least one entry.
   */
  public Info finish() throws IOException {
    if (entries == 0) {
      throw new IllegalStateException("a table needs at least one entry");
    }
    if (inPage > 0) {
      endPage();
    }
    flushBuffer();
    long indexOffset = TableFormat.pageOffset(pages);
    ByteBuffer tail =
        ByteBuffer.allocate(pages * 12 + TableFormat.TRAILER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
    for (int p = 0; p < pages; p++) {
      tail.putLong(fences[p]);
    }
    for (int p = 0; p < pages; p++) {
      tail.putInt(crcs[p]);
    }
    tail.putLong(indexOffset)
        .putInt(pages)
        .putInt(0)
        .putLong(entries)
        .putLong(minId)
        .putLong(maxId)
        .putLong(tombstones);
    tail.putInt(Checksums.crc32c(tail, 0, tail.position()));
    tail.flip();
    file.write(tail);
    file.force();
    long bytes = file.position();
    file.close();
    return new Info(entries, tombstones, minId, maxId, bytes);
  }

  /** Closes and deletes the partial file. */
  public void abort() {
    try {
      file.close();
    } catch (IOException ignored) {
      // The file is being thrown away; a close failure changes nothing.
    }
    try {
      fs.delete(path);
    } catch (IOException ignored) {
      // Left behind, it is an orphan the next open deletes.
    }
  }
}
