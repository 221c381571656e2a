package io.docstore.queue.segment;

import io.docstore.io.Checksums;
import io.docstore.io.FileSystem;
import io.docstore.io.KillPoints;
import io.docstore.io.NoSpaceException;
import io.docstore.io.WritableFile;
import io.docstore.queue.block.RecordDictionary;
import io.docstore.queue.format.SegmentFileName;
import io.docstore.queue.format.SegmentFormat;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.locks.ReentrantLock;
import java.util.zip.CRC32C;

/**
 * Appends encoded blocks to the active segment and rolls to a new segment when it passes the
 * configured size.
 *
 * <p>Sealing, in this order (proof sketch in docs/formats/segment.md, "Sealing"): write the footer,
 * force the file, rename {@code .active} to {@code .sealed}, fsync the directory; only then create
 * the next segment (header written and forced, directory fsynced). A crash at any point leaves
 * either an active segment with or without a complete footer (recovery finishes or discards the
 * seal) or a sealed segment and no active one (recovery creates the next).
 *
 * <p>A full disk ({@link NoSpaceException}) is recoverable: a block write that fails is cut back to
 * the segment's previous length; a seal whose footer does not fit is cut back the same way and left
 * for later (the segment grows a little past the configured size); a next segment that cannot be
 * created is created later. {@link #prepare} retries whatever is pending before the writer
 * addresses a new block. Any other failure is left to the writer, which then refuses writes.
 *
 * <p>Thread-safety: {@link #write} and {@link #roll} are called by the writer under its lock;
 * {@link #force} may be called from any thread (group commit leader). A file lock keeps a force
 * from hitting a file that a concurrent roll is closing.
 */
public final class SegmentAppender implements Closeable {

  private final FileSystem fs;
  private final Path dir;
  private final SegmentSet segments;
  private final QueueCounters counters;
  private final long segmentSize;
  private final ReentrantLock fileLock = new ReentrantLock();
  private WritableFile file;
  private SegmentInfo info;
  private CRC32C digest;
  private long blockCount;

  /**
   * The last force: the segment's number in the high 32 bits, the length of it forced in the low 32
   * (a segment is under 2 GiB). One field, so a reader never pairs one segment's length with
   * another segment.
   */
  private volatile long forced;

  /** The active segment was sealed but the next one could not be created yet (full disk). */
  private boolean nextPending;

  private boolean closed;

  SegmentAppender(
      FileSystem fs,
      Path dir,
      SegmentSet segments,
      QueueCounters counters,
      long segmentSize,
      WritableFile file,
      SegmentInfo info,
      CRC32C digest,
      long blockCount) {
    this.fs = fs;
    this.dir = dir;
    this.segments = segments;
    this.counters = counters;
    this.segmentSize = segmentSize;
    this.file = file;
    this.info = info;
    this.digest = digest;
    this.blockCount = blockCount;
  }

  /** Creates segment {@code number} (header written, forced, directory synced) and registers it. */
  static SegmentAppender createFirst(
      FileSystem fs,
      Path dir,
      SegmentSet segments,
      QueueCounters counters,
      long segmentSize,
      long number,
      long baseSequence)
      throws IOException {
    SegmentAppender a =
        new SegmentAppender(fs, dir, segments, counters, segmentSize, null, null, null, 0);
    a.openSegment(number, baseSequence);
    return a;
  }

  static void addToDigest(CRC32C digest, int crc) {
    digest.update(crc >>> 24);
    digest.update(crc >>> 16);
    digest.update(crc >>> 8);
    digest.update(crc);
  }

  static int digestValue(CRC32C digest) {
    return Checksums.mask((int) digest.getValue());
  }

  /**
   * Finishes a seal or segment creation that a full disk postponed, so that {@link #segment} and
   * {@link #position} say where the next block goes. Writer thread only, before addressing a block.
   *
   * @throws NoSpaceException if the disk is still full (nothing changed)
   */
  public void prepare() throws IOException {
    if (nextPending) {
      fileLock.lock();
      try {
        openSegment(info.number() + 1, info.lastSequence() + 1);
        nextPending = false;
      } finally {
        fileLock.unlock();
      }
    } else if (file.position() >= segmentSize && blockCount > 0) {
      roll();
    }
  }

  /** Offset where the next block will be written. Writer thread only. */
  public long position() {
    return file.position();
  }

  /** Number of the segment the next block goes to. Writer thread only. */
  public long segment() {
    return info.number();
  }

  /**
   * Writes one complete block holding records up to {@code lastSequence}, publishes it to readers,
   * and rolls to a new segment if the active one has passed the configured size.
   */
  public void write(ByteBuffer block, int crc, long lastSequence) throws IOException {
    int length = writeBytes(block);
    addToDigest(digest, crc);
    published(1, length, lastSequence);
  }

  /**
   * Writes the segment's dictionary block as its first block (the segment must hold none yet) and
   * publishes it; it holds no record, so the segment never rolls on it.
   */
  public void writeDictionary(ByteBuffer block, int crc, RecordDictionary d) throws IOException {
    if (blockCount != 0 || file.position() != SegmentFormat.HEADER_LENGTH) {
      throw new IllegalStateException(
          "a dictionary block goes first in a segment; "
              + info.path()
              + " holds "
              + blockCount
              + " blocks");
    }
    int length = writeBytes(block);
    addToDigest(digest, crc);
    blockCount++;
    info.dictionary(d);
    info.published(file.position(), info.lastSequence());
    counters.storedBytes.add(length);
  }

  /** Whether the active segment holds no block yet. Writer thread only. */
  public boolean empty() {
    return blockCount == 0;
  }

  /**
   * {@link #write} for several complete blocks back to back in {@code blocks} (their checksums are
   * {@code crcs[from..to)}), with one system call. The caller starts no block past the configured
   * segment size, as {@link #write}'s callers do: only the last block may end beyond it.
   */
  public void write(ByteBuffer blocks, int[] crcs, int from, int to, long lastSequence)
      throws IOException {
    int length = writeBytes(blocks);
    for (int i = from; i < to; i++) {
      addToDigest(digest, crcs[i]);
    }
    published(to - from, length, lastSequence);
  }

  /**
   * Writes {@code bytes} at the end of the active file, cutting the file back if the disk is full.
   */
  private int writeBytes(ByteBuffer bytes) throws IOException {
    int length = bytes.remaining();
    long before = file.position();
    try {
      file.write(bytes);
    } catch (NoSpaceException e) {
      cutBack(before, e);
      throw e;
    }
    return length;
  }

  private void published(int blocks, int length, long lastSequence) throws IOException {
    blockCount += blocks;
    info.published(file.position(), lastSequence);
    counters.storedBytes.add(length);
    KillPoints.reach("queue.block.afterWrite");
    if (file.position() >= segmentSize) {
      try {
        roll();
      } catch (NoSpaceException e) {
        // The block is written; the seal (or the next segment) waits for space: see prepare().
        counters.rollsPostponed.increment();
      }
    }
  }

  /**
   * Cuts the active file back to {@code length} after a failed write; a failed cut is not
   * recoverable.
   */
  private void cutBack(long length, NoSpaceException cause) throws IOException {
    try {
      file.truncate(length);
    } catch (IOException | RuntimeException t) {
      IOException e =
          new IOException(
              "could not cut "
                  + file.path()
                  + " back to "
                  + length
                  + " bytes after a write failed for lack of space",
              t);
      e.addSuppressed(cause);
      throw e;
    }
  }

  /** Forces the active segment's data (group commit's force). Any thread. */
  public void force() throws IOException {
    fileLock.lock();
    try {
      if (file == null) {
        if (nextPending && !closed) {
          return; // sealed and forced; the next segment does not exist yet
        }
        throw new IOException("queue segment file is closed");
      }
      long end = file.position(); // every byte before it was written before the force began
      file.force();
      forced = info.number() << 32 | end;
    } finally {
      fileLock.unlock();
    }
  }

  /**
   * How much of the active segment is known to be on disk: the length forced by the last {@link
   * #force} or at its creation; 0 if nothing is known (a segment resumed at open, until its first
   * force). Writer thread only.
   */
  public long forcedEnd() {
    long f = forced;
    return f >>> 32 == info.number() ? f & 0xFFFF_FFFFL : 0;
  }

  /**
   * Seals the active segment and starts the next. Writer thread only; the segment must hold a
   * block.
   */
  public void roll() throws IOException {
    fileLock.lock();
    try {
      seal();
      nextPending = true;
      openSegment(info.number() + 1, info.lastSequence() + 1);
      nextPending = false;
    } finally {
      fileLock.unlock();
    }
  }

  private void seal() throws IOException {
    long blocksEnd = file.position();
    SegmentFooter footer =
        new SegmentFooter(
            info.lastSequence() - info.baseSequence() + 1,
            info.baseSequence(),
            info.lastSequence(),
            blockCount,
            blocksEnd,
            digestValue(digest));
    KillPoints.reach("queue.seal.beforeFooter");
    try {
      file.write(footer.encode());
    } catch (NoSpaceException e) {
      cutBack(blocksEnd, e);
      throw e;
    }
    KillPoints.reach("queue.seal.afterFooter");
    file.force();
    counters.fsyncs.increment();
    file.close();
    file = null;
    Path active = file(info.number(), false);
    Path sealed = file(info.number(), true);
    KillPoints.reach("queue.seal.beforeRename");
    fs.rename(active, sealed);
    KillPoints.reach("queue.seal.afterRename");
    fs.syncDirectory(dir);
    KillPoints.reach("queue.seal.afterPublish");
    info.markSealed(sealed);
    counters.segmentsSealed.increment();
  }

  private void openSegment(long number, long baseSequence) throws IOException {
    Path path = file(number, false);
    WritableFile f;
    try {
      f = fs.create(path);
    } catch (IOException e) {
      throw NoSpaceException.classify(e);
    }
    try {
      f.write(new SegmentHeader(number, baseSequence).encode());
    } catch (NoSpaceException e) {
      f.close();
      try {
        fs.delete(path); // never durable: the next attempt creates it again
      } catch (IOException | RuntimeException t) {
        e.addSuppressed(t);
      }
      throw e;
    } catch (IOException e) {
      f.close();
      throw e;
    }
    try {
      f.force();
      KillPoints.reach("queue.roll.afterCreate");
      fs.syncDirectory(dir);
    } catch (IOException e) {
      f.close();
      throw e;
    }
    counters.fsyncs.increment();
    SegmentInfo next =
        new SegmentInfo(
            number, baseSequence, path, fs.openRead(path), f.position(), baseSequence - 1, false);
    file = f;
    info = next;
    forced = number << 32 | f.position();
    digest = new CRC32C();
    blockCount = 0;
    counters.segmentsCreated.increment();
    segments.add(next);
  }

  private Path file(long number, boolean sealed) {
    return new SegmentFileName(number, sealed).in(dir);
  }

  /** Closes the active file without sealing it (the next open resumes it). Does not force. */
  @Override
  public void close() throws IOException {
    fileLock.lock();
    try {
      closed = true;
      if (file != null) {
        file.close();
        file = null;
      }
    } finally {
      fileLock.unlock();
    }
  }
}
