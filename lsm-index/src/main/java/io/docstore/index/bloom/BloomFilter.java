package io.docstore.index.bloom;

import io.docstore.index.file.FileHeader;
import io.docstore.io.Checksums;
import io.docstore.io.CorruptionException;
import io.docstore.io.FileSystem;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * One table's bloom filter, read from its file. Page bits live in the shared {@link BloomPager}'s
 * off-heap slots; this object keeps only per-page bookkeeping: which slot holds the page (or none),
 * the page checksums from the trailer, and the request and answer counters usefulness is learnt
 * from.
 *
 * <p>Thread-safety: {@link #query} is lock-free and may run in any number of threads. The counters
 * are plain ints incremented without synchronisation: a lost increment only blurs a statistic. Slot
 * assignments are changed only by the pager under its lock.
 */
public final class BloomFilter implements java.io.Closeable {

  /** Answers of {@link #query}. */
  public static final int NO = 0;

  public static final int MAYBE = 1;
  public static final int NOT_RESIDENT = 2;

  static final int SLOT_NONE = -1;
  static final int SLOT_CORRUPT = -2;
  private static final VarHandle INTS = MethodHandles.arrayElementVarHandle(int[].class);

  private final Path path;
  private final FileChannel ch;
  private final int version;
  private final int pageCount;
  private final int probes;
  private final long keys;
  private final int[] pageCrc;
  final long tag;
  final int[] slotOf;
  final int[] requests;
  final int[] answered;
  final int[] noes;

  /** Pager-owned decayed statistics. */
  final double[] heat;

  final double[] answeredDecayed;
  final double[] noesDecayed;
  private BloomPager pager;

  private BloomFilter(
      Path path,
      FileChannel ch,
      int version,
      int pageCount,
      int probes,
      long keys,
      int[] pageCrc,
      long tag) {
    this.path = path;
    this.ch = ch;
    this.version = version;
    this.pageCount = pageCount;
    this.probes = probes;
    this.keys = keys;
    this.pageCrc = pageCrc;
    this.tag = tag;
    this.slotOf = new int[pageCount];
    java.util.Arrays.fill(slotOf, SLOT_NONE);
    this.requests = new int[pageCount];
    this.answered = new int[pageCount];
    this.noes = new int[pageCount];
    this.heat = new double[pageCount];
    this.answeredDecayed = new double[pageCount];
    this.noesDecayed = new double[pageCount];
  }

  /**
   * Opens a bloom file of any version from {@link BloomFormat#MIN_VERSION} to {@link
   * BloomFormat#VERSION}, verifying its header and trailer checksum (page checksums are verified as
   * each page is loaded), and registers it with the pager, which loads pages while slots are free.
   *
   * @throws io.docstore.io.UnsupportedFormatException a version this build does not read (not
   *     corruption)
   */
  public static BloomFilter open(FileSystem fs, Path path, BloomPager pager) throws IOException {
    FileChannel ch = fs.openRead(path);
    try {
      long size = ch.size();
      ByteBuffer head = ByteBuffer.allocate(FileHeader.SIZE).order(ByteOrder.LITTLE_ENDIAN);
      readFully(ch, head, 0);
      head.flip();
      FileHeader.Header h =
          FileHeader.read(
              head, 0, path, BloomFormat.FORMAT, BloomFormat.MIN_VERSION, BloomFormat.VERSION);
      if (h.param1() != BloomFormat.PAGE_SIZE || h.param2() < 1 || h.param2() > 16) {
        throw new CorruptionException(
            path,
            FileHeader.PARAM1_OFFSET,
            "bad page size " + h.param1() + " or probe count " + h.param2());
      }
      if (size < BloomFormat.FIRST_PAGE_OFFSET + BloomFormat.TRAILER_SIZE) {
        throw new CorruptionException(path, size, "bloom file truncated to " + size + " bytes");
      }
      ByteBuffer tr = ByteBuffer.allocate(BloomFormat.TRAILER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
      long trailerAt = size - BloomFormat.TRAILER_SIZE;
      readFully(ch, tr, trailerAt);
      int pages = tr.getInt(BloomFormat.T_PAGE_COUNT);
      long expectedSize = BloomFormat.pageOffset(pages) + 4L * pages + BloomFormat.TRAILER_SIZE;
      if (pages < 1 || expectedSize != size) {
        throw new CorruptionException(
            path, trailerAt, "trailer page count " + pages + " does not match file size " + size);
      }
      long crcsAt = BloomFormat.pageOffset(pages);
      ByteBuffer block =
          ByteBuffer.allocate(pages * 4 + BloomFormat.TRAILER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
      readFully(ch, block, crcsAt);
      int expected = block.getInt(block.limit() - 4);
      int actual = Checksums.crc32c(block, 0, block.limit() - 4);
      if (expected != actual) {
        throw CorruptionException.checksum(path, size - 4, "bloom trailer", expected, actual);
      }
      int probes = block.getInt(pages * 4 + BloomFormat.T_PROBES);
      if (probes != h.param2()) {
        throw new CorruptionException(
            path, crcsAt + pages * 4 + BloomFormat.T_PROBES, "probe count differs from header");
      }
      int[] crcs = new int[pages];
      for (int p = 0; p < pages; p++) {
        crcs[p] = block.getInt(p * 4);
      }
      long keys = block.getLong(pages * 4 + BloomFormat.T_KEYS);
      BloomFilter f =
          new BloomFilter(path, ch, h.version(), pages, probes, keys, crcs, pager.newTag());
      f.pager = pager;
      pager.register(f);
      return f;
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  static void readFully(FileChannel ch, ByteBuffer buf, long pos) throws IOException {
    while (buf.hasRemaining()) {
      int n = ch.read(buf, pos);
      if (n < 0) {
        throw new java.io.EOFException("unexpected end of file at " + pos);
      }
      pos += n;
    }
  }

  public Path path() {
    return path;
  }

  /** The format version of the file: 1 (probes anywhere in a page) or 2 (in one 64-byte block). */
  public int version() {
    return version;
  }

  public int pageCount() {
    return pageCount;
  }

  public int probes() {
    return probes;
  }

  public long keys() {
    return keys;
  }

  int pageCrc(int p) {
    return pageCrc[p];
  }

  FileChannel channel() {
    return ch;
  }

  int slot(int p) {
    return (int) INTS.getAcquire(slotOf, p);
  }

  void setSlot(int p, int slot) {
    INTS.setRelease(slotOf, p, slot);
  }

  /**
   * {@link #NO}, {@link #MAYBE} or {@link #NOT_RESIDENT} (which also means maybe). Never a false
   * "no".
   */
  public int query(long id) {
    long h = Hashing.mix64(id);
    int p = Hashing.page(h, pageCount);
    requests[p]++;
    int s = slot(p);
    if (s < 0) {
      return NOT_RESIDENT;
    }
    int r = pager.probe(s, tag | p, Hashing.probeHash(h), probes, version);
    if (r != NOT_RESIDENT) {
      answered[p]++;
      if (r == NO) {
        noes[p]++;
      }
    }
    return r;
  }

  /** Releases this filter's slots; called when its table is closed. */
  @Override
  public void close() throws IOException {
    pager.unregister(this);
    ch.close();
  }
}
