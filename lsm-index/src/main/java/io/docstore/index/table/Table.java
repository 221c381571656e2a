package io.docstore.index.table;

import io.docstore.index.bloom.BloomFilter;
import io.docstore.index.file.FileHeader;
import io.docstore.io.Checksums;
import io.docstore.io.ColdReads;
import io.docstore.io.CorruptionException;
import io.docstore.io.FileSystem;
import io.docstore.io.MappedFile;
import io.docstore.io.cache.SlotCache;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An open, immutable on-disk index table with its fence index (first id of each page) in memory, so
 * a lookup reads one 4 KiB page: from the table's read-only mapping ({@link MappedFile}, advised
 * {@code MADV_RANDOM}: a page fault reads that page alone) when the table was opened mapped, else
 * with one positional read. Opening verifies the header and the trailer checksum (which covers
 * fences and page checksums). Every page read, by a lookup or an iteration, is checked against its
 * checksum before use, so a damaged page is reported, never served.
 *
 * <p>Thread-safety: lookups from any number of threads, each with its own page buffer. Reference
 * counted: the channel is closed (and, if {@link #markObsolete obsolete}, the files deleted) when
 * the last reference is released.
 */
public final class Table {

  private final FileSystem fs;
  private final long number;
  private final Path path;
  private final FileChannel ch;
  private final MappedFile mapped;
  private final BloomFilter bloom;
  private final long[] fences;
  private final int[] pageCrcs;
  private final int pageCount;
  private final long entryCount;
  private final long tombstones;
  private final long minId;
  private final long maxId;
  private final long bytes;
  private final AtomicInteger refs = new AtomicInteger(1);
  private volatile boolean obsolete;

  private Table(
      FileSystem fs,
      long number,
      Path path,
      FileChannel ch,
      boolean mapped,
      BloomFilter bloom,
      long[] fences,
      int[] pageCrcs,
      long entryCount,
      long tombstones,
      long minId,
      long maxId,
      long bytes) {
    this.fs = fs;
    this.number = number;
    this.path = path;
    this.ch = ch;
    this.mapped = mapped ? new MappedFile(ch, path, ByteOrder.LITTLE_ENDIAN) : null;
    this.bloom = bloom;
    this.fences = fences;
    this.pageCrcs = pageCrcs;
    this.pageCount = fences.length;
    this.entryCount = entryCount;
    this.tombstones = tombstones;
    this.minId = minId;
    this.maxId = maxId;
    this.bytes = bytes;
  }

  /**
   * Opens and verifies a table file for positional reads; {@code bloom} may be null (tools). Holds
   * one reference.
   */
  public static Table open(FileSystem fs, Path path, long number, BloomFilter bloom)
      throws IOException {
    return open(fs, path, number, bloom, false);
  }

  /**
   * As {@link #open(FileSystem, Path, long, BloomFilter)}; with {@code mapped}, lookups read pages
   * from a mapping of the file (made on the first lookup; released with the last reference).
   */
  public static Table open(FileSystem fs, Path path, long number, BloomFilter bloom, boolean mapped)
      throws IOException {
    FileChannel ch = fs.openRead(path);
    try {
      long size = ch.size();
      ByteBuffer head = ByteBuffer.allocate(FileHeader.SIZE).order(ByteOrder.LITTLE_ENDIAN);
      readFully(ch, head, 0, path);
      head.flip();
      FileHeader.Header h =
          FileHeader.read(
              head, 0, path, TableFormat.FORMAT, TableFormat.VERSION, TableFormat.VERSION);
      if (h.param1() != TableFormat.PAGE_SIZE || h.param2() != TableFormat.ENTRY_SIZE) {
        throw new CorruptionException(
            path,
            FileHeader.PARAM1_OFFSET,
            "unexpected page size " + h.param1() + " / entry size " + h.param2());
      }
      if (size < TableFormat.FIRST_PAGE_OFFSET + TableFormat.TRAILER_SIZE) {
        throw new CorruptionException(path, size, "table truncated to " + size + " bytes");
      }
      long trailerAt = size - TableFormat.TRAILER_SIZE;
      ByteBuffer tr = ByteBuffer.allocate(TableFormat.TRAILER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
      readFully(ch, tr, trailerAt, path);
      long indexOffset = tr.getLong(TableFormat.T_INDEX_OFFSET);
      int pages = tr.getInt(TableFormat.T_PAGE_COUNT);
      if (pages < 1
          || indexOffset != TableFormat.pageOffset(pages)
          || indexOffset + pages * 12L != trailerAt) {
        throw new CorruptionException(
            path,
            trailerAt,
            "trailer (index offset "
                + indexOffset
                + ", "
                + pages
                + " pages) does not match file size "
                + size);
      }
      ByteBuffer block =
          ByteBuffer.allocate(pages * 12 + TableFormat.TRAILER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
      readFully(ch, block, indexOffset, path);
      int expected = block.getInt(block.limit() - 4);
      int actual = Checksums.crc32c(block, 0, block.limit() - 4);
      if (expected != actual) {
        throw CorruptionException.checksum(
            path, size - 4, "table index block and trailer", expected, actual);
      }
      long[] fences = new long[pages];
      int[] crcs = new int[pages];
      for (int p = 0; p < pages; p++) {
        fences[p] = block.getLong(p * 8);
        crcs[p] = block.getInt(pages * 8 + p * 4);
      }
      int t = pages * 12;
      long entries = block.getLong(t + TableFormat.T_ENTRY_COUNT);
      if (entries <= (long) (pages - 1) * TableFormat.ENTRIES_PER_PAGE
          || entries > (long) pages * TableFormat.ENTRIES_PER_PAGE) {
        throw new CorruptionException(
            path,
            trailerAt + TableFormat.T_ENTRY_COUNT,
            "entry count " + entries + " does not fit " + pages + " pages");
      }
      return new Table(
          fs,
          number,
          path,
          ch,
          mapped,
          bloom,
          fences,
          crcs,
          entries,
          block.getLong(t + TableFormat.T_TOMBSTONES),
          block.getLong(t + TableFormat.T_MIN_ID),
          block.getLong(t + TableFormat.T_MAX_ID),
          size);
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  static void readFully(FileChannel ch, ByteBuffer buf, long pos, Path path) throws IOException {
    while (buf.hasRemaining()) {
      int n = ch.read(buf, pos);
      if (n < 0) {
        throw new EOFException(path + ": unexpected end of file at offset " + pos);
      }
      pos += n;
    }
  }

  public long number() {
    return number;
  }

  public Path path() {
    return path;
  }

  public BloomFilter bloom() {
    return bloom;
  }

  public long entryCount() {
    return entryCount;
  }

  public long tombstones() {
    return tombstones;
  }

  public long minId() {
    return minId;
  }

  public long maxId() {
    return maxId;
  }

  public long bytes() {
    return bytes;
  }

  public int pageCount() {
    return pageCount;
  }

  long fence(int p) {
    return fences[p];
  }

  int pageCrc(int p) {
    return pageCrcs[p];
  }

  FileChannel channel() {
    return ch;
  }

  int entriesInPage(int p) {
    return p < pageCount - 1
        ? TableFormat.ENTRIES_PER_PAGE
        : (int) (entryCount - (long) p * TableFormat.ENTRIES_PER_PAGE);
  }

  /**
   * The page that holds {@code id} if any: the last page whose fence is at most {@code id}, or -1.
   */
  int pageFor(long id) {
    int lo = 0;
    int hi = pageCount - 1;
    if (id < fences[0]) {
      return -1;
    }
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (fences[mid] <= id) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

  /** Each thread's buffer for a page read with a positional read (mapping off or not possible). */
  private static final ThreadLocal<ByteBuffer> PAGE =
      ThreadLocal.withInitial(
          () -> ByteBuffer.allocateDirect(TableFormat.PAGE_SIZE).order(ByteOrder.LITTLE_ENDIAN));

  /**
   * Looks {@code id} up in its page, read from the mapping or with one positional read. Returns the
   * value, -2 (tombstone) or -1 (not in this table). The caller has checked the id range and the
   * bloom filter.
   */
  public long find(long id) throws IOException {
    return find(id, null, null);
  }

  /**
   * As {@link #find(long)}, with a cache of verified pages ({@code cache}: slots of {@link
   * TableFormat#PAGE_SIZE} bytes, little-endian; null for none) and a judge of whether this table's
   * mapping is warm ({@code coldReads}; null: always use the cache).
   *
   * <p>While mapped reads are warm the page is read and verified in place and the cache is not
   * asked: a hit there would save only the page's checksum, and costs a lookup, and a miss a copy
   * of the page. After a mapped read that waited for the disk, the cache is asked first for a while
   * ({@link ColdReads}): a page there was verified once, on fill, and stays in memory while the OS
   * page cache is short of room. A page read from the file on a miss is verified and then offered
   * to the cache (its entries only).
   */
  public long find(long id, SlotCache cache, ColdReads coldReads) throws IOException {
    int p = pageFor(id);
    if (p < 0) {
      return -1L;
    }
    long offset = TableFormat.pageOffset(p);
    ByteBuffer src =
        mapped == null ? null : mapped.chunk(offset, TableFormat.PAGE_SIZE, bytes, true);
    int base = MappedFile.indexInChunk(offset);
    if (src != null && (cache == null || (coldReads != null && coldReads.useMapping()))) {
      long started = coldReads == null ? 0 : coldReads.started();
      verify(src, base, p, offset);
      long v = search(src, base, entriesInPage(p), id);
      if (coldReads != null) {
        coldReads.finished(started);
      }
      return v;
    }
    long key = pageKey(p);
    if (cache != null) {
      long v = cache.getLong(key, Table::searchSlot, id);
      if (v != SlotCache.MISS) {
        return v;
      }
    }
    if (src == null) {
      src = PAGE.get().clear();
      readFully(ch, src, offset, path);
      base = 0;
    }
    verify(src, base, p, offset);
    int entries = entriesInPage(p);
    if (cache != null) {
      cache.put(key, src, base, entries * TableFormat.ENTRY_SIZE);
    }
    return search(src, base, entries, id);
  }

  private void verify(ByteBuffer src, int base, int p, long offset) throws CorruptionException {
    int actual = Checksums.crc32c(src, base, TableFormat.PAGE_SIZE);
    if (actual != pageCrcs[p]) {
      throw CorruptionException.checksum(path, offset, "table page " + p, pageCrcs[p], actual);
    }
  }

  /** Cache key of page {@code p}: table number in the high half, page number in the low half. */
  private long pageKey(int p) {
    return (number << 32) | p;
  }

  private static long searchSlot(ByteBuffer slab, int offset, int length, long id) {
    return search(slab, offset, length / TableFormat.ENTRY_SIZE, id);
  }

  /**
   * Binary search of {@code entries} sorted (id, value) pairs from {@code offset}; the value or -1.
   */
  private static long search(ByteBuffer buf, int offset, int entries, long id) {
    int lo = 0;
    int hi = entries - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      long m = buf.getLong(offset + mid * TableFormat.ENTRY_SIZE);
      if (m < id) {
        lo = mid + 1;
      } else if (m > id) {
        hi = mid - 1;
      } else {
        return buf.getLong(offset + mid * TableFormat.ENTRY_SIZE + 8);
      }
    }
    return -1L;
  }

  /** Iterates entries with id {@code >= fromId}, verifying each page's checksum as it is read. */
  public EntryIterator iterator(long fromId) {
    return new TableIterator(this, fromId);
  }

  /** Takes a reference unless the table is already closed; false if it is. */
  public boolean retain() {
    while (true) {
      int r = refs.get();
      if (r <= 0) {
        return false;
      }
      if (refs.compareAndSet(r, r + 1)) {
        return true;
      }
    }
  }

  /** Drops a reference; the last one closes the files and deletes them if obsolete. */
  public void release() throws IOException {
    if (refs.decrementAndGet() == 0) {
      try {
        if (mapped != null) {
          mapped.unmapNow(); // no reader is left: each holds a reference while it reads
        }
        ch.close();
        if (bloom != null) {
          bloom.close();
        }
      } finally {
        if (obsolete) {
          fs.delete(path);
          if (bloom != null) {
            fs.delete(bloom.path());
          }
        }
      }
    }
  }

  /** The table left the manifest: delete its files once the last reader is done. */
  public void markObsolete() {
    obsolete = true;
  }
}
