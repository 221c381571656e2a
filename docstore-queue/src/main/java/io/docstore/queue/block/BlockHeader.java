package io.docstore.queue.block;

/**
 * What a block's header says, once its checksum matched: where it lies and which sequences it
 * holds, nothing decoded. Filled by {@link BlockReader#readHeader}; reusable (one per reader), not
 * thread-safe.
 */
public final class BlockHeader {

  long offset;
  int storedLength;
  int count;
  long firstSequence;
  int crc;

  /** Records in the block (0 for a dictionary, padding or sync-mark block). */
  public int count() {
    return count;
  }

  public long firstSequence() {
    return firstSequence;
  }

  /** {@code firstSequence() - 1} for a block without records. */
  public long lastSequence() {
    return firstSequence + count - 1;
  }

  /** The block's stored checksum (what the block CRC chain of a manifest takes). */
  public int crc() {
    return crc;
  }

  /** Offset of the next block in the file. */
  public long end() {
    return offset + io.docstore.queue.format.BlockFormat.HEADER_LENGTH + storedLength;
  }
}
