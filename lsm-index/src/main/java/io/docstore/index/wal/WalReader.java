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
 * Replays a WAL file. Torn-tail policy (docs/formats/wal.md): in the newest WAL file, the first
 * record that is incomplete, has an impossible count or fails its checksum ends the log; it and
 * every byte after it are reported as dropped (the caller truncates them), unless a whole valid
 * record follows a record failing its checksum: that is damage in the middle of the log, a {@link
 * CorruptionException}, never a tail to cut. In an older WAL file, which was complete before a
 * newer one was created, the same damage is a {@link CorruptionException}.
 */
public final class WalReader {

  /** Receives replayed entries in log order. */
  @FunctionalInterface
  public interface Sink {
    void accept(long id, long value);
  }

  /** What a replay found: bytes of whole valid records (header included) and bytes dropped. */
  public record Result(long validBytes, long droppedBytes, long entries, String dropReason) {}

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
        FileHeader.read(all, 0, path, WalFormat.FORMAT, WalFormat.VERSION, WalFormat.VERSION);
      } catch (CorruptionException e) {
        return new Result(0, size, 0, "incomplete header");
      }
    }
    FileHeader.read(all, 0, path, WalFormat.FORMAT, WalFormat.VERSION, WalFormat.VERSION);
    int pos = WalFormat.HEADER_SIZE;
    long entries = 0;
    while (pos < size) {
      String bad = null;
      int count = 0;
      if (size - pos < WalFormat.RECORD_HEADER) {
        bad = "incomplete record header";
      } else {
        count = all.getInt(pos + WalFormat.COUNT_OFFSET);
        if (count < 1 || count > WalFormat.MAX_COUNT) {
          bad = "impossible entry count " + Integer.toUnsignedString(count);
        } else if (size - pos < WalFormat.RECORD_HEADER + (long) count * WalFormat.ENTRY_SIZE) {
          bad = "record runs past end of file";
        } else {
          int len = WalFormat.RECORD_HEADER + count * WalFormat.ENTRY_SIZE;
          int expected = all.getInt(pos + WalFormat.CRC_OFFSET);
          int actual =
              Checksums.crc32c(all, pos + WalFormat.COUNT_OFFSET, len - WalFormat.COUNT_OFFSET);
          if (expected != actual) {
            if (!newest || validRecordAt(all, pos + len)) {
              // A torn write can only be the last record: a whole valid record after it means the
              // damage is in the middle of the log, and cutting there would silently lose it.
              throw CorruptionException.checksum(path, pos, "WAL record", expected, actual);
            }
            bad =
                String.format(
                    "record checksum mismatch (expected %08x, actual %08x)", expected, actual);
          }
        }
      }
      if (bad != null) {
        if (!newest) {
          throw new CorruptionException(path, pos, bad + " in a WAL that is not the newest");
        }
        return new Result(pos, size - pos, entries, bad + " at offset " + pos);
      }
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
      pos += WalFormat.RECORD_HEADER + count * WalFormat.ENTRY_SIZE;
    }
    return new Result(size, 0, entries, null);
  }

  /** Whether a whole record with a matching checksum starts at {@code pos}. */
  private static boolean validRecordAt(ByteBuffer all, int pos) {
    int size = all.limit();
    if (size - pos < WalFormat.RECORD_HEADER) {
      return false;
    }
    int count = all.getInt(pos + WalFormat.COUNT_OFFSET);
    if (count < 1
        || count > WalFormat.MAX_COUNT
        || size - pos < WalFormat.RECORD_HEADER + (long) count * WalFormat.ENTRY_SIZE) {
      return false;
    }
    int len = WalFormat.RECORD_HEADER + count * WalFormat.ENTRY_SIZE;
    return all.getInt(pos + WalFormat.CRC_OFFSET)
        == Checksums.crc32c(all, pos + WalFormat.COUNT_OFFSET, len - WalFormat.COUNT_OFFSET);
  }
}
