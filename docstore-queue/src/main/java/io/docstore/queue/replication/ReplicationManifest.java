package io.docstore.queue.replication;

import static io.docstore.queue.replication.ManifestFormat.*;

import io.docstore.io.AtomicFiles;
import io.docstore.io.CorruptionException;
import io.docstore.io.FileSystem;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * What a replica may ingest: every segment numbered below {@code segment} in full (they are
 * sealed), and {@code segment} up to {@code durableLength} bytes, whose last block holds {@code
 * lastSequence} and whose {@code blockCount} blocks chain to {@code chain} ({@link BlockCrcChain}).
 * All of it was durable on the primary when the manifest was written.
 *
 * <p>Byte layout in {@link ManifestFormat}; spec in {@code docs/formats/replication-manifest.md}.
 */
public record ReplicationManifest(
    long segment,
    long baseSequence,
    long durableLength,
    long lastSequence,
    long blockCount,
    int chain,
    long publishedAtMillis) {

  public byte[] encode() {
    ByteBuffer b = LAYOUT.begin();
    b.putLong(SEGMENT, segment);
    b.putLong(BASE_SEQUENCE, baseSequence);
    b.putLong(DURABLE_LENGTH, durableLength);
    b.putLong(LAST_SEQUENCE, lastSequence);
    b.putLong(BLOCK_COUNT, blockCount);
    b.putInt(CHAIN, chain);
    b.putLong(PUBLISHED_AT, publishedAtMillis);
    return LAYOUT.seal(b);
  }

  /** Decodes and checks (crc, magic, name, version, field sanity). */
  public static ReplicationManifest decode(Path file, byte[] bytes) throws IOException {
    ByteBuffer b = LAYOUT.check(file, bytes);
    ReplicationManifest m =
        new ReplicationManifest(
            b.getLong(SEGMENT),
            b.getLong(BASE_SEQUENCE),
            b.getLong(DURABLE_LENGTH),
            b.getLong(LAST_SEQUENCE),
            b.getLong(BLOCK_COUNT),
            b.getInt(CHAIN),
            b.getLong(PUBLISHED_AT));
    if (m.segment < 1
        || m.baseSequence < 1
        || m.durableLength < io.docstore.queue.format.SegmentFormat.HEADER_LENGTH
        || m.lastSequence < m.baseSequence - 1
        || m.blockCount < 0
        || (m.blockCount == 0) != (m.lastSequence == m.baseSequence - 1)) {
      throw new CorruptionException(
          file, 0, "replication manifest passes its checksum but is inconsistent: " + m);
    }
    return m;
  }

  /** The manifest in {@code dir}, or null if there is none (yet). */
  public static ReplicationManifest read(FileSystem fs, Path dir) throws IOException {
    Path file = dir.resolve(FILE_NAME);
    byte[] bytes = AtomicFiles.readFixed(fs, file, LENGTH, LAYOUT.what());
    return bytes == null ? null : decode(file, bytes);
  }

  /** Replaces the manifest in {@code dir} atomically ({@link AtomicFiles#publish}). */
  public void publish(FileSystem fs, Path dir) throws IOException {
    AtomicFiles.publish(fs, dir.resolve(FILE_NAME), encode());
  }
}
