package io.docstore.index.wal;

import io.docstore.index.file.FileHeader;
import io.docstore.io.Checksums;
import io.docstore.io.FileSystem;
import io.docstore.io.GroupCommit;
import io.docstore.io.NoSpaceException;
import io.docstore.io.SyncPolicy;
import io.docstore.io.WritableFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongConsumer;
import java.util.zip.CRC32C;

/**
 * Appends records to one WAL file (layout in {@link WalFormat}). Records are staged in a 64 KiB
 * in-process buffer and handed to the file when it fills, when {@link GroupCommit} forces (the
 * force drains the buffer first, so a position reported durable was really written), and on {@link
 * #close}.
 *
 * <p>Sync marks: after a force that made bytes past the last mark durable, the next record appended
 * is preceded by a 16-byte mark claiming the length that force covered (a record boundary), so a
 * file holds at most one mark per fsync and none under {@code none} unless {@link #sync} forced.
 * {@link #close} also writes a mark for the last force (and forces it, unless the policy is {@code
 * none}), so a cleanly closed file claims everything in it but that mark; {@link #finish}, which
 * closes a WAL a newer one already follows, does not (see docs/formats/wal.md).
 *
 * <p>Durability per policy: {@code always} waits for a group-committed fsync; {@code interval:N}
 * returns at once and the fsync thread makes records durable within N ms; {@code none} leaves it to
 * the OS and may lose up to one buffer of records on a process kill (see docs/decisions.md).
 *
 * <p>A full disk ({@link NoSpaceException}) is not sticky: a write of the buffer that fails is cut
 * back to the file's previous length and the buffer kept, so the next drain or fsync retries it; a
 * record that could not be staged is not counted (its {@code append} throws). A failed fsync is
 * sticky ({@link GroupCommit}).
 *
 * <p>Thread-safety: {@link #append} and {@link #close} are called by the single writer; the buffer
 * is guarded by a lock because the interval fsync thread drains it too.
 */
public final class WalWriter implements java.io.Closeable {

  private static final int BUFFER_BYTES = 64 * 1024;

  /** Count and entry bytes of a single-entry record (what its checksum covers). */
  private static final int SINGLE_BYTES =
      WalFormat.RECORD_HEADER - WalFormat.COUNT_OFFSET + WalFormat.ENTRY_SIZE;

  private final long number;
  private final WritableFile file;
  private final GroupCommit commit;
  private final ReentrantLock lock = new ReentrantLock();
  private final ByteBuffer buf =
      ByteBuffer.allocateDirect(BUFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN);

  /** Scratch for single-entry records and a reused CRC32C: both guarded by {@link #lock}. */
  private final ByteBuffer single =
      ByteBuffer.allocate(SINGLE_BYTES).order(ByteOrder.LITTLE_ENDIAN);

  private final CRC32C crc = new CRC32C();

  /**
   * Logical bytes appended (written to the file or still buffered); only the writer advances it.
   */
  private volatile long appended;

  /** Where records start (after the header): nothing appended while {@code appended} is here. */
  private final long start;

  /** The file length the last completed force covered (a record boundary). Guarded by lock. */
  private long forcedEnd;

  /** Where the last mark ends ({@code start} before the first). Guarded by lock. */
  private long markedEnd;

  /** Scratch for a mark, guarded by {@link #lock}. */
  private final ByteBuffer mark =
      ByteBuffer.allocate(WalFormat.MARK_SIZE).order(ByteOrder.LITTLE_ENDIAN);

  private WalWriter(long number, WritableFile file, SyncPolicy policy, LongConsumer fsyncNanos) {
    this.number = number;
    this.file = file;
    this.appended = file.position();
    this.start = appended;
    this.forcedEnd = appended;
    this.markedEnd = appended;
    this.commit =
        new GroupCommit(
            "index-wal-" + number, policy, () -> appended, this::drainAndForce, appended);
    this.commit.onSync(fsyncNanos);
  }

  /**
   * Creates a new WAL file, writes its header and makes file and directory entry durable, so that
   * records forced later cannot vanish with an undurable create.
   */
  public static WalWriter create(
      FileSystem fs, Path path, long number, SyncPolicy policy, LongConsumer fsyncNanos)
      throws IOException {
    WritableFile f = fs.create(path);
    try {
      f.write(FileHeader.bytes(WalFormat.FORMAT, WalFormat.VERSION, 0, 0));
      f.force();
      fs.syncDirectory(path.toAbsolutePath().getParent());
    } catch (IOException e) {
      f.close();
      throw e;
    }
    return new WalWriter(number, f, policy, fsyncNanos);
  }

  public long number() {
    return number;
  }

  public Path path() {
    return file.path();
  }

  /** Whether any record was appended to this WAL (a file holding only its header holds nothing). */
  public boolean holdsRecords() {
    return appended > start;
  }

  /**
   * Stages one record with {@code count} entries and returns the position that must become durable
   * to acknowledge it. {@code values[i] == -2} is a tombstone.
   */
  public long append(long[] ids, long[] values, int from, int count) throws IOException {
    if (count < 1 || count > WalFormat.MAX_COUNT) {
      throw new IllegalArgumentException("record entry count " + count);
    }
    int size = WalFormat.RECORD_HEADER + count * WalFormat.ENTRY_SIZE;
    lock.lock();
    try {
      stageDueMarkLocked();
      if (buf.remaining() < size) {
        drainLocked(); // also hands a staged mark to the file before a direct write
      }
      if (buf.remaining() < size) {
        writeDirect(ids, values, from, count, size);
      } else {
        int start = buf.position();
        buf.position(start + WalFormat.COUNT_OFFSET);
        buf.putInt(count);
        for (int i = from; i < from + count; i++) {
          buf.putLong(ids[i]).putLong(values[i]);
        }
        buf.putInt(
            start,
            Checksums.crc32c(buf, start + WalFormat.COUNT_OFFSET, size - WalFormat.COUNT_OFFSET));
      }
      long pos = appended + size;
      appended = pos;
      return pos;
    } finally {
      lock.unlock();
    }
  }

  /** Stages a single-entry record; the allocation-free path of {@code put}. */
  public long append(long id, long value) throws IOException {
    int size = WalFormat.RECORD_HEADER + WalFormat.ENTRY_SIZE;
    lock.lock();
    try {
      stageDueMarkLocked();
      if (buf.remaining() < size) {
        drainLocked();
      }
      int start = buf.position();
      single.putInt(0, 1).putLong(4, id).putLong(12, value);
      crc.reset();
      crc.update(single.array(), 0, SINGLE_BYTES);
      buf.putInt(Checksums.mask((int) crc.getValue()));
      buf.put(single.array(), 0, SINGLE_BYTES);
      long pos = appended + size;
      appended = pos;
      return pos;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Stages a sync mark if a force covered bytes past the last mark; returns whether it did. The
   * mark counts as appended even if the record after it then fails to stage: alone it is still
   * valid.
   */
  private boolean stageDueMarkLocked() throws IOException {
    if (forcedEnd <= markedEnd) {
      return false;
    }
    if (buf.remaining() < WalFormat.MARK_SIZE) {
      drainLocked();
    }
    mark.putInt(WalFormat.COUNT_OFFSET, WalFormat.MARK_COUNT)
        .putLong(WalFormat.MARK_SYNCED_END_OFFSET, forcedEnd);
    crc.reset();
    crc.update(mark.array(), WalFormat.COUNT_OFFSET, WalFormat.MARK_SIZE - WalFormat.COUNT_OFFSET);
    mark.putInt(WalFormat.CRC_OFFSET, Checksums.mask((int) crc.getValue()));
    buf.put(mark.array(), 0, WalFormat.MARK_SIZE);
    appended += WalFormat.MARK_SIZE;
    markedEnd = appended;
    return true;
  }

  private void writeDirect(long[] ids, long[] values, int from, int count, int size)
      throws IOException {
    ByteBuffer big = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    big.position(WalFormat.COUNT_OFFSET);
    big.putInt(count);
    for (int i = from; i < from + count; i++) {
      big.putLong(ids[i]).putLong(values[i]);
    }
    big.putInt(0, Checksums.crc32c(big, WalFormat.COUNT_OFFSET, size - WalFormat.COUNT_OFFSET));
    big.flip();
    write(big);
  }

  /** Writes {@code src} to the file; on a full disk cuts the file back and rethrows. Lock held. */
  private void write(ByteBuffer src) throws IOException {
    long before = file.position();
    try {
      file.write(src);
    } catch (NoSpaceException e) {
      try {
        file.truncate(before);
      } catch (IOException | RuntimeException t) {
        IOException fatal =
            new IOException(
                "could not cut "
                    + file.path()
                    + " back to "
                    + before
                    + " bytes after a write failed for lack of space",
                t);
        fatal.addSuppressed(e);
        throw fatal;
      }
      throw e;
    }
  }

  /**
   * Waits until {@code position} is durable as the policy requires ({@code interval}: does not
   * wait).
   */
  public void awaitDurable(long position) throws IOException {
    if (commit.policy().mode() == SyncPolicy.Mode.ALWAYS) {
      commit.awaitDurable(position);
    } else {
      commit.checkHealthy();
    }
  }

  /** Writes and fsyncs everything appended so far, whatever the policy. */
  public void sync() throws IOException {
    commit.syncNow();
  }

  /** Hands buffered records to the OS without fsync. */
  public void drain() throws IOException {
    lock.lock();
    try {
      drainLocked();
    } finally {
      lock.unlock();
    }
  }

  private void drainLocked() throws IOException {
    if (buf.position() > 0) {
      ByteBuffer out = buf.duplicate();
      out.flip();
      write(out); // buf keeps the records if this fails
      buf.clear();
    }
  }

  private void drainAndForce() throws IOException {
    long end;
    lock.lock();
    try {
      drainLocked();
      end = file.position(); // a record boundary: what this force is sure to cover
    } finally {
      lock.unlock();
    }
    file.force();
    lock.lock();
    try {
      forcedEnd = Math.max(forcedEnd, end);
    } finally {
      lock.unlock();
    }
  }

  /** Bytes appended so far, header included. */
  public long size() {
    return appended;
  }

  /**
   * Closes a WAL that a newer one already follows: like {@link #close} without the final mark (a
   * mark written now could still be lost after the newer WAL is durable, leaving this older one
   * torn), and leaves this writer open and usable when draining or syncing fails (a full disk: the
   * caller keeps appending here and retries later).
   */
  public void finish() throws IOException {
    if (commit.policy().mode() == SyncPolicy.Mode.NONE) {
      drain();
    } else {
      commit.syncNow();
    }
    close(false);
  }

  /**
   * Drains the buffer, fsyncs unless the policy is {@code none}, writes a mark for the last force
   * if it covered bytes past the last mark (forced too, unless the policy is {@code none}), and
   * closes the file.
   */
  @Override
  public void close() throws IOException {
    close(true);
  }

  private void close(boolean finalMark) throws IOException {
    try {
      if (commit.policy().mode() == SyncPolicy.Mode.NONE) {
        if (finalMark) {
          stageDueMark();
        }
        drain();
      } else {
        commit.syncNow();
        if (finalMark && stageDueMark()) {
          commit.syncNow();
        }
      }
    } finally {
      commit.close();
      file.close();
    }
  }

  private boolean stageDueMark() throws IOException {
    lock.lock();
    try {
      return stageDueMarkLocked();
    } finally {
      lock.unlock();
    }
  }
}
