package io.docstore.index.wal;

import io.docstore.index.file.FileHeader;
import io.docstore.io.Checksums;
import io.docstore.io.CorruptionException;
import io.docstore.io.FileSystem;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * Replays a WAL file of version 1 or 2 (docs/formats/wal.md). Torn-tail policy for the newest WAL
 * file: the first record or sync mark that is incomplete, has an impossible count or fails its
 * checksum (at offset X) ends the log; it and every byte after it are reported as dropped (the
 * caller truncates them), unless a sync mark later in the file verifies and says bytes past X had
 * been fsynced: then X is damage before the durable point, a {@link CorruptionException}. Whole
 * records that verify after X without such a mark are pages written back before earlier ones by a
 * power loss ({@link Result#laterRecordsVerify()}), dropped with the rest. In a version 1 file (no
 * marks) a checksum failure directly followed by a whole verifying record is corruption, as version
 * 1 readers always had it. In an older WAL file, which was complete and durable before a newer one
 * was created, any such damage is a {@link CorruptionException}.
 */
public final class WalReader {

  /** Receives replayed entries in log order. */
  @FunctionalInterface
  public interface Sink {
    void accept(long id, long value);

    /**
     * A verified sync mark at {@code offset}: every byte before {@code syncedEnd} had been fsynced
     * when it was written. Replay ignores marks (they hold no entries); tools show them.
     */
    default void mark(long offset, long syncedEnd) {}
  }

  /**
   * What a replay found: the file's format version (0 for a torn create), bytes of whole valid
   * records and marks (header included), bytes dropped, the entries and marks replayed, why the
   * tail was dropped (null if nothing was), and whether whole records that verify lie among the
   * dropped bytes (pages written back out of order: later records reached the disk, an earlier one
   * did not).
   */
  public record Result(
      int version,
      long validBytes,
      long droppedBytes,
      long entries,
      long marks,
      String dropReason,
      boolean laterRecordsVerify) {}

  private WalReader() {}

  public static Result replay(FileSystem fs, Path path, boolean newest, Sink sink)
      throws IOException {
    ByteBuffer all;
    try (FileChannel ch = fs.openRead(path)) {
      long size = ch.size();
      if (size > Integer.MAX_VALUE) {
        throw new CorruptionException(
            path, 0, "WAL file of " + size + " bytes is larger than any WAL written");
      }
      all = ByteBuffer.allocate((int) size).order(ByteOrder.LITTLE_ENDIAN);
      while (all.hasRemaining() && ch.read(all, all.position()) >= 0) {
        // keep reading until full
      }
      all.flip();
    }
    int size = all.limit();
    if (size <= WalFormat.HEADER_SIZE && newest) {
      try {
        FileHeader.read(all, 0, path, WalFormat.FORMAT, WalFormat.MIN_VERSION, WalFormat.VERSION);
      } catch (CorruptionException e) {
        return new Result(0, 0, size, 0, 0, "incomplete header", false);
      }
    }
    int version =
        FileHeader.read(all, 0, path, WalFormat.FORMAT, WalFormat.MIN_VERSION, WalFormat.VERSION)
            .version();
    boolean marked = version >= WalFormat.MARK_VERSION;
    int pos = WalFormat.HEADER_SIZE;
    long entries = 0;
    long marks = 0;
    while (pos < size) {
      String bad = null;
      int count = 0;
      int len = 0;
      if (size - pos < WalFormat.RECORD_HEADER) {
        bad = "incomplete record header";
      } else {
        count = all.getInt(pos + WalFormat.COUNT_OFFSET);
        boolean mark = marked && count == WalFormat.MARK_COUNT;
        String what = mark ? "WAL sync mark" : "WAL record";
        if (mark) {
          len = WalFormat.MARK_SIZE;
        } else if (count < 1 || count > WalFormat.MAX_COUNT) {
          bad = "impossible entry count " + Integer.toUnsignedString(count);
        } else {
          len = WalFormat.RECORD_HEADER + count * WalFormat.ENTRY_SIZE;
        }
        if (bad == null && size - pos < len) {
          bad = (mark ? "sync mark" : "record") + " runs past end of file";
        } else if (bad == null) {
          int expected = all.getInt(pos + WalFormat.CRC_OFFSET);
          int actual =
              Checksums.crc32c(all, pos + WalFormat.COUNT_OFFSET, len - WalFormat.COUNT_OFFSET);
          if (expected != actual) {
            if (!newest || (!marked && verifiedLength(all, pos + len, version) > 0)) {
              // Older WAL: it was whole before a newer one existed. Version 1: without marks,
              // a whole valid record right after the damage is taken as damage in the middle.
              throw CorruptionException.checksum(path, pos, what, expected, actual);
            }
            bad =
                String.format(
                    "%s checksum mismatch (expected %08x, actual %08x)", what, expected, actual);
          }
        }
      }
      if (bad != null) {
        if (!newest) {
          throw new CorruptionException(path, pos, bad + " in a WAL that is not the newest");
        }
        Later later = marked ? scanAfter(all, pos, path) : Later.NOTHING;
        if (later.claim() > pos) {
          throw new CorruptionException(
              path,
              pos,
              bad
                  + ", but the sync mark at offset "
                  + later.markAt()
                  + " says every byte before "
                  + later.claim()
                  + " had been fsynced: damage before the durable point, not a torn tail");
        }
        return new Result(
            version, pos, size - pos, entries, marks, bad + " at offset " + pos, later.verified());
      }
      if (marked && count == WalFormat.MARK_COUNT) {
        long syncedEnd = all.getLong(pos + WalFormat.MARK_SYNCED_END_OFFSET);
        checkClaim(path, pos, syncedEnd);
        sink.mark(pos, syncedEnd);
        marks++;
      } else {
        int e = pos + WalFormat.ENTRIES_OFFSET;
        for (int i = 0; i < count; i++, e += WalFormat.ENTRY_SIZE) {
          long id = all.getLong(e + WalFormat.ENTRY_ID_OFFSET);
          long value = all.getLong(e + WalFormat.ENTRY_VALUE_OFFSET);
          if (id < 0 || (value < 0 && value != -2L)) {
            throw new CorruptionException(
                path, e, "checksummed WAL entry holds impossible id " + id + " / value " + value);
          }
          sink.accept(id, value);
        }
        entries += count;
      }
      pos += len;
    }
    return new Result(version, size, 0, entries, marks, null, false);
  }

  /** A mark is written after a force, so it can only claim bytes before itself. */
  private static void checkClaim(Path path, int at, long syncedEnd) throws CorruptionException {
    if (syncedEnd < WalFormat.HEADER_SIZE || syncedEnd > at) {
      throw new CorruptionException(
          path,
          at,
          "checksummed sync mark claims "
              + syncedEnd
              + " bytes fsynced, impossible for a mark at this offset");
    }
  }

  /**
   * What lies after the first bad record: whether any whole record or mark verifies there, and the
   * highest {@code syncedEnd} a verified mark claims (-1 if none) with that mark's offset.
   */
  private record Later(boolean verified, long claim, int markAt) {
    static final Later NOTHING = new Later(false, -1, -1);
  }

  /**
   * Looks at every 8-aligned offset after {@code bad} for a whole record or mark that verifies
   * (where the damaged record ends is unknown, so the next record's start is too). Every mark is
   * checked (16 bytes each); entry records only until one verifies, and within a budget of bytes
   * checksummed linear in the bytes scanned, so garbage with plausible counts cannot make this
   * quadratic. Stepping over a verified record keeps its entries from being read as marks.
   */
  private static Later scanAfter(ByteBuffer all, int bad, Path path) throws CorruptionException {
    int size = all.limit();
    long budget = 4L * (size - bad) + (1 << 20);
    boolean verified = false;
    boolean recordFound = false;
    long claim = -1;
    int markAt = -1;
    int p = bad + WalFormat.ALIGNMENT;
    while (size - p >= WalFormat.RECORD_HEADER) {
      int count = all.getInt(p + WalFormat.COUNT_OFFSET);
      int len = 0;
      if (count == WalFormat.MARK_COUNT) {
        len = verifiedLength(all, p, WalFormat.MARK_VERSION);
      } else if (!recordFound && count >= 1 && count <= WalFormat.MAX_COUNT) {
        long need = WalFormat.RECORD_HEADER + (long) count * WalFormat.ENTRY_SIZE;
        if (need <= budget && need <= size - p) {
          budget -= need;
          len = verifiedLength(all, p, WalFormat.MARK_VERSION);
          recordFound = len > 0;
        }
      }
      if (len == 0) {
        p += WalFormat.ALIGNMENT;
        continue;
      }
      verified = true;
      if (count == WalFormat.MARK_COUNT) {
        long syncedEnd = all.getLong(p + WalFormat.MARK_SYNCED_END_OFFSET);
        checkClaim(path, p, syncedEnd);
        if (syncedEnd > claim) {
          claim = syncedEnd;
          markAt = p;
        }
      }
      p += len;
    }
    return new Later(verified, claim, markAt);
  }

  /**
   * The length of the whole record (or, from version 2 on, mark) with a matching checksum that
   * starts at {@code pos}, or 0 if there is none.
   */
  private static int verifiedLength(ByteBuffer all, int pos, int version) {
    int size = all.limit();
    if (pos < 0 || size - pos < WalFormat.RECORD_HEADER) {
      return 0;
    }
    int count = all.getInt(pos + WalFormat.COUNT_OFFSET);
    long len;
    if (count == WalFormat.MARK_COUNT && version >= WalFormat.MARK_VERSION) {
      len = WalFormat.MARK_SIZE;
    } else if (count >= 1 && count <= WalFormat.MAX_COUNT) {
      len = WalFormat.RECORD_HEADER + (long) count * WalFormat.ENTRY_SIZE;
    } else {
      return 0;
    }
    if (size - pos < len) {
      return 0;
    }
    int n = (int) len;
    return all.getInt(pos + WalFormat.CRC_OFFSET)
            == Checksums.crc32c(all, pos + WalFormat.COUNT_OFFSET, n - WalFormat.COUNT_OFFSET)
        ? n
        : 0;
  }
}
