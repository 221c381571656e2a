package io.docstore.queue.segment;

import static io.docstore.queue.format.SegmentFormat.FOOTER_LENGTH;
import static io.docstore.queue.format.SegmentFormat.HEADER_LENGTH;

import io.docstore.io.CorruptionException;
import io.docstore.queue.block.BlockReader;
import io.docstore.queue.block.DecodedBlock;
import io.docstore.queue.format.BlockFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * Walks a segment file block by block from its header, verifying each block in full (checksum,
 * decompression, offset table, sequence continuity). Used by recovery (active segment), the
 * verifier and the dump tool.
 *
 * <p>Not thread-safe; one scan per instance.
 */
public final class SegmentScanner {

  /** What {@link #next} found at the current position. */
  public enum Kind {
    BLOCK,
    FOOTER,
    END
  }

  private final Path file;
  private final FileChannel ch;
  private final long end;
  private final BlockReader reader;
  private final SegmentHeader header;
  private final CRC32C digest = new CRC32C();
  private long position = HEADER_LENGTH;
  private long nextSequence;

  /** Set by {@link #skipDamage}: blocks were skipped, so the footer is not compared with them. */
  private boolean skippedDamage;

  private long blockCount;
  private SegmentFooter footer;

  /** Reads the header (throws if damaged); {@code end} is the file's size. */
  public SegmentScanner(Path file, FileChannel ch, long end, BlockReader reader)
      throws IOException {
    this.file = file;
    this.ch = ch;
    this.end = end;
    this.reader = reader;
    this.header = SegmentHeader.read(ch, file);
    this.nextSequence = header.baseSequence();
  }

  public SegmentHeader header() {
    return header;
  }

  /** Offset of the next element: after a failure, where the damage starts. */
  public long position() {
    return position;
  }

  /** Sequence the next block must start with. */
  public long nextSequence() {
    return nextSequence;
  }

  public long blockCount() {
    return blockCount;
  }

  /**
   * Running CRC32C over the crc fields of the blocks scanned so far (unmasked state; see
   * SegmentAppender).
   */
  public CRC32C digest() {
    return digest;
  }

  public SegmentFooter footer() {
    return footer;
  }

  /**
   * Reads the element at the current position: a valid block (decoded into {@code block}), a valid
   * footer (which must be the last bytes of the file), or the end of the file.
   *
   * @throws CorruptionException at {@link #position()} if the bytes there are neither
   */
  public Kind next(DecodedBlock block) throws IOException {
    if (position == end) {
      return Kind.END;
    }
    if (end - position == FOOTER_LENGTH && footerMagicAt(position)) {
      SegmentFooter f = SegmentFooter.read(ch, file, position);
      if (f.reclaimed() && blockCount == 0) {
        nextSequence = f.lastSequence() + 1; // a hollow segment: its sequences were reclaimed
      }
      if (!skippedDamage
          && (f.blockCount() != blockCount
              || f.lastSequence() != nextSequence - 1
              || f.firstSequence() != header.baseSequence()
              || f.blockCrcDigest() != SegmentAppender.digestValue(digest))) {
        throw new CorruptionException(
            file,
            position,
            "footer "
                + f
                + " does not match the "
                + blockCount
                + " blocks before it (last sequence "
                + (nextSequence - 1)
                + ")");
      }
      footer = f;
      position = end;
      return Kind.FOOTER;
    }
    reader.read(ch, file, position, end, block);
    if (block.firstSequence() != nextSequence) {
      throw new CorruptionException(
          file,
          position,
          "block starts at sequence " + block.firstSequence() + ", expected " + nextSequence);
    }
    SegmentAppender.addToDigest(digest, block.crc());
    nextSequence = block.lastSequence() + 1;
    blockCount++;
    position = block.end();
    return Kind.BLOCK;
  }

  private boolean footerMagicAt(long offset) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(FOOTER_LENGTH);
    while (b.hasRemaining()) {
      if (ch.read(b, offset + b.position()) < 0) {
        return false;
      }
    }
    return SegmentFooter.hasMagic(b, 0);
  }

  /**
   * After {@link #next} failed: walks every verifiable block after the damage (by checksum, nothing
   * decoded) and returns the largest durable length that a sync mark among them claims; 0 if
   * verifiable blocks or a footer follow but no mark claims anything; -1 if nothing verifiable
   * follows. The damage lies before the durable point iff the result is greater than {@link
   * #position()}, which this leaves where it was.
   */
  public long durableClaimAfterDamage() throws IOException {
    long damageAt = position;
    long sequenceAt = nextSequence;
    long claim = -1;
    try {
      while (position < end) {
        long at = nextValidAfterDamage();
        if (at < 0) {
          break;
        }
        claim = Math.max(claim, 0);
        position = at;
        while (position < end && reader.verifiable(ch, file, position, end)) {
          ByteBuffer b = reader.readStored(ch, file, position, end);
          if (b.get(BlockFormat.FLAGS) == BlockFormat.FLAG_SYNC_MARK) {
            claim =
                Math.max(claim, b.getLong(BlockFormat.HEADER_LENGTH + BlockFormat.MARK_SYNCED_END));
          }
          nextSequence =
              b.getLong(BlockFormat.FIRST_SEQUENCE)
                  + Short.toUnsignedInt(b.getShort(BlockFormat.RECORD_COUNT));
          position += BlockFormat.HEADER_LENGTH + b.getInt(BlockFormat.STORED_LENGTH);
        }
      }
    } finally {
      position = damageAt;
      nextSequence = sequenceAt;
    }
    return claim;
  }

  /**
   * After {@link #next} failed in the middle of the file: moves past the damage to the next
   * verifiable block (or the footer), so that a verifier can go on and report every damaged place,
   * not only the first. Returns false (and stays put) if nothing verifiable follows. The records
   * between stay unaccounted for, so the footer is then read but no longer compared with the blocks
   * (its own checksum still is).
   */
  public boolean skipDamage() throws IOException {
    long at = nextValidAfterDamage();
    if (at < 0) {
      return false;
    }
    skippedDamage = true;
    if (end - at == FOOTER_LENGTH && footerMagicAt(at)) {
      position = at;
      return true;
    }
    ByteBuffer seq = ByteBuffer.allocate(8);
    while (seq.hasRemaining()) {
      if (ch.read(seq, at + BlockFormat.FIRST_SEQUENCE + seq.position()) < 0) {
        return false;
      }
    }
    position = at; // its checksum verified: the next call decodes it (and reports what fails)
    nextSequence = seq.getLong(0);
    return true;
  }

  /** Where the next verifiable block or footer after {@link #position()} starts, or -1. */
  private long nextValidAfterDamage() throws IOException {
    final int window = 1 << 20;
    ByteBuffer b = ByteBuffer.allocate(window);
    DecodedBlock scratch = new DecodedBlock();
    for (long chunk = position + 1;
        chunk + BlockFormat.HEADER_LENGTH <= end;
        chunk += window - FOOTER_LENGTH) {
      int len = (int) Math.min(window, end - chunk);
      b.clear().limit(len);
      while (b.hasRemaining()) {
        if (ch.read(b, chunk + b.position()) < 0) {
          break;
        }
      }
      int usable = Math.min(len, window - FOOTER_LENGTH);
      for (int i = 0; i < usable && i + BlockFormat.HEADER_LENGTH <= len; i++) {
        long at = chunk + i;
        if (end - at == FOOTER_LENGTH && i + FOOTER_LENGTH <= len && SegmentFooter.hasMagic(b, i)) {
          ByteBuffer f = b.duplicate();
          f.position(i).limit(i + FOOTER_LENGTH);
          try {
            SegmentFooter.parse(f.slice(), file, at);
            return at;
          } catch (CorruptionException notAFooter) {
            continue;
          }
        }
        int stored = b.getInt(i + BlockFormat.STORED_LENGTH);
        long seq = b.getLong(i + BlockFormat.FIRST_SEQUENCE);
        if (stored <= 0
            || stored > end - at - BlockFormat.HEADER_LENGTH
            || seq < nextSequence
            || seq - nextSequence > (1L << 32)
            || b.get(i + BlockFormat.RESERVED) != 0) {
          continue;
        }
        if (reader.verifiable(ch, file, at, end)) {
          return at;
        }
      }
    }
    return -1;
  }
}
