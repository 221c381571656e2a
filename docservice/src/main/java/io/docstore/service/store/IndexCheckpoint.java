package io.docstore.service.store;

import io.docstore.io.AtomicFiles;
import io.docstore.io.Checksums;
import io.docstore.io.CorruptionException;
import io.docstore.io.FileSystem;
import io.docstore.io.UnsupportedFormatException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Reads and publishes the index checkpoint: the highest queue sequence number whose record is known
 * durable in the index. Layout in {@link CheckpointFormat}.
 *
 * <p>Contract: {@link #publish} is called only after {@code index.sync()} returned for every record
 * up to {@code indexedThrough}; it replaces the file atomically (temp, force, rename, directory
 * fsync), so after a crash the file holds either the old or the new value, never a mix.
 */
public final class IndexCheckpoint {

  private IndexCheckpoint() {}

  /** The checkpointed sequence in {@code dir}, or 0 when there is no checkpoint yet. */
  public static long read(FileSystem fs, Path dir) throws IOException {
    Path file = dir.resolve(CheckpointFormat.FILE_NAME);
    byte[] bytes = AtomicFiles.readFixed(fs, file, CheckpointFormat.LENGTH, "checkpoint");
    if (bytes == null) {
      return 0;
    }
    return decode(file, bytes);
  }

  /** Atomically replaces the checkpoint in {@code dir}. */
  public static void publish(FileSystem fs, Path dir, long indexedThrough, long nowMillis)
      throws IOException {
    AtomicFiles.publish(
        fs, dir.resolve(CheckpointFormat.FILE_NAME), encode(indexedThrough, nowMillis));
  }

  static byte[] encode(long indexedThrough, long nowMillis) {
    ByteBuffer b = ByteBuffer.allocate(CheckpointFormat.LENGTH);
    b.put(CheckpointFormat.MAGIC);
    b.put((byte) CheckpointFormat.NAME.length);
    b.put(CheckpointFormat.NAME);
    b.putShort((short) CheckpointFormat.VERSION);
    b.putLong(indexedThrough);
    b.putLong(nowMillis);
    b.putInt(Checksums.crc32c(b.array(), 0, CheckpointFormat.CRC_OFFSET));
    return b.array();
  }

  static long decode(Path file, byte[] bytes) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    int stored = b.getInt(CheckpointFormat.CRC_OFFSET);
    int actual = Checksums.crc32c(bytes, 0, CheckpointFormat.CRC_OFFSET);
    if (stored != actual) {
      throw CorruptionException.checksum(
          file, CheckpointFormat.CRC_OFFSET, "index checkpoint", stored, actual);
    }
    if (!Arrays.equals(Arrays.copyOfRange(bytes, 0, 4), CheckpointFormat.MAGIC)
        || bytes[CheckpointFormat.NAME_LENGTH_OFFSET] != CheckpointFormat.NAME.length
        || !Arrays.equals(
            Arrays.copyOfRange(
                bytes, CheckpointFormat.NAME_OFFSET, CheckpointFormat.VERSION_OFFSET),
            CheckpointFormat.NAME)) {
      throw new CorruptionException(file, 0, "not an index checkpoint (bad magic or format name)");
    }
    int version = Short.toUnsignedInt(b.getShort(CheckpointFormat.VERSION_OFFSET));
    if (version != CheckpointFormat.VERSION) {
      throw new UnsupportedFormatException(
          file, "index-checkpoint", version, CheckpointFormat.VERSION, CheckpointFormat.VERSION);
    }
    long through = b.getLong(CheckpointFormat.INDEXED_THROUGH_OFFSET);
    if (through < 0) {
      throw new CorruptionException(
          file, CheckpointFormat.INDEXED_THROUGH_OFFSET, "negative sequence " + through);
    }
    return through;
  }
}
