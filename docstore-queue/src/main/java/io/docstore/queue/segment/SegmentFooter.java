package io.docstore.queue.segment;

import static io.docstore.queue.format.SegmentFormat.*;

import io.docstore.io.Checksums;
import io.docstore.io.CorruptionException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * A sealed segment's footer, the last 56 bytes of the file:
 *
 * <pre>
 * +---------+-----------+-----------+-----------+----------+-----------+-----------+-----------+----------+
 * | crc u32 | magic u32 | count u64 | first u64 | last u64 | blocks u64| end u64   | digest u32| flags u32|
 * +---------+-----------+-----------+-----------+----------+-----------+-----------+-----------+----------+
 * </pre>
 *
 * The crc is the masked CRC32C of the 52 bytes after it. {@code blocksEnd} is where the footer
 * starts (the end of the last block); {@code blockCrcDigest} is the masked CRC32C over every
 * block's crc field in order. {@code reclaimed} (flag 1) marks a hollow segment: no block, its
 * records relocated or garbage, its sequence range kept (docs/design/space-reclamation.md).
 */
public record SegmentFooter(
    long recordCount,
    long firstSequence,
    long lastSequence,
    long blockCount,
    long blocksEnd,
    int blockCrcDigest,
    boolean reclaimed) {

  /** The footer of a segment that holds its blocks. */
  public SegmentFooter(
      long recordCount,
      long firstSequence,
      long lastSequence,
      long blockCount,
      long blocksEnd,
      int blockCrcDigest) {
    this(recordCount, firstSequence, lastSequence, blockCount, blocksEnd, blockCrcDigest, false);
  }

  /** The footer of the hollow replacement of a segment that held {@code [first, last]}. */
  public static SegmentFooter hollow(long firstSequence, long lastSequence) {
    return new SegmentFooter(
        lastSequence - firstSequence + 1,
        firstSequence,
        lastSequence,
        0,
        HEADER_LENGTH,
        Checksums.crc32c(new byte[0], 0, 0),
        true);
  }

  public ByteBuffer encode() {
    ByteBuffer b = ByteBuffer.allocate(FOOTER_LENGTH);
    b.putInt(FOOTER_MAGIC, FOOTER_MAGIC_VALUE);
    b.putLong(RECORD_COUNT, recordCount);
    b.putLong(FIRST_SEQUENCE, firstSequence);
    b.putLong(LAST_SEQUENCE, lastSequence);
    b.putLong(BLOCK_COUNT, blockCount);
    b.putLong(BLOCKS_END, blocksEnd);
    b.putInt(BLOCK_CRC_DIGEST, blockCrcDigest);
    b.putInt(FOOTER_FLAGS, reclaimed ? FOOTER_FLAG_RECLAIMED : 0);
    b.putInt(FOOTER_CRC, Checksums.crc32c(b, FOOTER_MAGIC, FOOTER_LENGTH - FOOTER_MAGIC));
    return b;
  }

  /** True if the 4 bytes at {@code FOOTER_MAGIC} of {@code b} (absolute) are the footer magic. */
  static boolean hasMagic(ByteBuffer b, int at) {
    return b.getInt(at + FOOTER_MAGIC) == FOOTER_MAGIC_VALUE;
  }

  /**
   * Reads and verifies the footer at {@code offset}, which must be the last {@code FOOTER_LENGTH}
   * bytes.
   */
  public static SegmentFooter read(FileChannel ch, Path file, long offset) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(FOOTER_LENGTH);
    while (b.hasRemaining()) {
      if (ch.read(b, offset + b.position()) < 0) {
        throw new CorruptionException(
            file, offset, "truncated footer: file ends at " + (offset + b.position()));
      }
    }
    return parse(b, file, offset);
  }

  static SegmentFooter parse(ByteBuffer b, Path file, long offset) throws CorruptionException {
    if (b.getInt(FOOTER_MAGIC) != FOOTER_MAGIC_VALUE) {
      throw new CorruptionException(
          file,
          offset,
          String.format(
              "no footer: magic %08x (expected %08x)", b.getInt(FOOTER_MAGIC), FOOTER_MAGIC_VALUE));
    }
    int expected = b.getInt(FOOTER_CRC);
    int actual = Checksums.crc32c(b, FOOTER_MAGIC, FOOTER_LENGTH - FOOTER_MAGIC);
    if (expected != actual) {
      throw CorruptionException.checksum(file, offset, "segment footer", expected, actual);
    }
    SegmentFooter f =
        new SegmentFooter(
            b.getLong(RECORD_COUNT),
            b.getLong(FIRST_SEQUENCE),
            b.getLong(LAST_SEQUENCE),
            b.getLong(BLOCK_COUNT),
            b.getLong(BLOCKS_END),
            b.getInt(BLOCK_CRC_DIGEST),
            b.getInt(FOOTER_FLAGS) == FOOTER_FLAG_RECLAIMED);
    int flags = b.getInt(FOOTER_FLAGS);
    if (f.blocksEnd() != offset
        || f.recordCount() != f.lastSequence() - f.firstSequence() + 1
        || (flags != 0 && flags != FOOTER_FLAG_RECLAIMED)
        || (f.reclaimed()
            ? f.blockCount() != 0
                || f.blocksEnd() != HEADER_LENGTH
                || f.blockCrcDigest() != Checksums.crc32c(new byte[0], 0, 0)
            : f.blockCount() < 1)) {
      throw new CorruptionException(
          file, offset, "footer passes its checksum but is inconsistent: " + f);
    }
    return f;
  }
}
