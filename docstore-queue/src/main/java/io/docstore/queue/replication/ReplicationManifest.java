package io.docstore.queue.replication;

import static io.docstore.queue.replication.ManifestFormat.*;

import io.docstore.io.AtomicFiles;
import io.docstore.io.Checksums;
import io.docstore.io.CorruptionException;
import io.docstore.io.FileSystem;
import io.docstore.io.UnsupportedFormatException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * What a replica may ingest: every segment numbered below {@code segment} in full (they are
 * sealed), and {@code segment} up to {@code durableLength} bytes, whose last block holds
 * {@code lastSequence} and whose {@code blockCount} blocks chain to {@code chain}
 * ({@link BlockChain}). All of it was durable on the primary when the manifest was written.
 *
 * <p>Byte layout in {@link ManifestFormat}; spec in {@code docs/formats/replication-manifest.md}.
 */
public record ReplicationManifest(long segment, long baseSequence, long durableLength, long lastSequence,
    long blockCount, int chain, long publishedAtMillis) {

  public byte[] encode() {
    ByteBuffer b = ByteBuffer.allocate(LENGTH);
    b.putInt(MAGIC, MAGIC_VALUE);
    b.put(NAME, FORMAT_NAME_BYTES);
    b.putInt(FORMAT_VERSION, VERSION);
    b.putLong(SEGMENT, segment);
    b.putLong(BASE_SEQUENCE, baseSequence);
    b.putLong(DURABLE_LENGTH, durableLength);
    b.putLong(LAST_SEQUENCE, lastSequence);
    b.putLong(BLOCK_COUNT, blockCount);
    b.putInt(CHAIN, chain);
    b.putLong(PUBLISHED_AT, publishedAtMillis);
    b.putInt(CRC, Checksums.crc32c(b.array(), 0, CRC));
    return b.array();
  }

  /** Decodes and checks (crc, magic, name, version, field sanity). */
  public static ReplicationManifest decode(Path file, byte[] bytes) throws IOException {
    if (bytes.length != LENGTH) {
      throw new CorruptionException(file, 0, "replication manifest is " + bytes.length + " bytes, expected " + LENGTH);
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    int expected = b.getInt(CRC);
    int actual = Checksums.crc32c(bytes, 0, CRC);
    if (expected != actual) {
      throw CorruptionException.checksum(file, CRC, "replication manifest", expected, actual);
    }
    if (b.getInt(MAGIC) != MAGIC_VALUE
        || !Arrays.equals(Arrays.copyOfRange(bytes, NAME, NAME + NAME_LENGTH), FORMAT_NAME_BYTES)) {
      throw new CorruptionException(file, 0, "not a replication manifest (bad magic or format name)");
    }
    int version = b.getInt(FORMAT_VERSION);
    if (version != VERSION) {
      throw new UnsupportedFormatException(file, FORMAT_NAME, version, VERSION, VERSION);
    }
    ReplicationManifest m = new ReplicationManifest(b.getLong(SEGMENT), b.getLong(BASE_SEQUENCE),
        b.getLong(DURABLE_LENGTH), b.getLong(LAST_SEQUENCE), b.getLong(BLOCK_COUNT), b.getInt(CHAIN),
        b.getLong(PUBLISHED_AT));
    if (m.segment < 1 || m.baseSequence < 1 || m.durableLength < io.docstore.queue.format.SegmentFormat.HEADER_LENGTH
        || m.lastSequence < m.baseSequence - 1 || m.blockCount < 0 || (m.blockCount == 0) != (m.lastSequence == m.baseSequence - 1)) {
      throw new CorruptionException(file, 0, "replication manifest passes its checksum but is inconsistent: " + m);
    }
    return m;
  }

  /** The manifest in {@code dir}, or null if there is none (yet). */
  public static ReplicationManifest read(FileSystem fs, Path dir) throws IOException {
    Path file = dir.resolve(FILE_NAME);
    if (!fs.exists(file)) {
      return null;
    }
    byte[] bytes;
    try (FileChannel ch = fs.openRead(file)) {
      long size = ch.size();
      if (size != LENGTH) {
        throw new CorruptionException(file, 0, "replication manifest is " + size + " bytes, expected " + LENGTH);
      }
      ByteBuffer buf = ByteBuffer.allocate(LENGTH);
      while (buf.hasRemaining()) {
        if (ch.read(buf, buf.position()) < 0) {
          throw new CorruptionException(file, buf.position(), "replication manifest ends early");
        }
      }
      bytes = buf.array();
    } catch (java.nio.file.NoSuchFileException e) {
      return null;
    }
    return decode(file, bytes);
  }

  /** Replaces the manifest in {@code dir} atomically ({@link AtomicFiles#publish}). */
  public void publish(FileSystem fs, Path dir) throws IOException {
    AtomicFiles.publish(fs, dir.resolve(FILE_NAME), encode());
  }
}
