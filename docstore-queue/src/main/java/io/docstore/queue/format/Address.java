package io.docstore.queue.format;

/**
 * The 64-bit address of a record: {@code 0 | segment (20 bits) | block offset (31 bits) | index (12
 * bits)}.
 *
 * <p>Invariants: an address is positive (the top bit is always 0 and segment numbers start at 1, so
 * it is never 0: the LSM index keeps 0 and negative values for "absent" and "deleted"). Limits:
 * segments 1..{@value #MAX_SEGMENT}, block offsets below 2 GiB (so a segment file is at most
 * {@value #MAX_SEGMENT_BYTES} bytes), at most {@value #MAX_RECORDS_PER_BLOCK} records per block.
 *
 * <p>Pure functions; thread-safe.
 */
public final class Address {

  public static final int INDEX_BITS = 12;
  public static final int OFFSET_BITS = 31;
  public static final int SEGMENT_BITS = 20;

  public static final int MAX_RECORDS_PER_BLOCK = 1 << INDEX_BITS;
  public static final long MAX_SEGMENT_BYTES = (1L << OFFSET_BITS) - 1;
  public static final long MAX_SEGMENT = (1L << SEGMENT_BITS) - 1;

  private static final int OFFSET_SHIFT = INDEX_BITS;
  private static final int SEGMENT_SHIFT = INDEX_BITS + OFFSET_BITS;

  private Address() {}

  public static long of(long segment, long blockOffset, int index) {
    if (segment < 1 || segment > MAX_SEGMENT) {
      throw new IllegalArgumentException(
          "segment number out of range 1.." + MAX_SEGMENT + ": " + segment);
    }
    if (blockOffset < 0 || blockOffset > MAX_SEGMENT_BYTES) {
      throw new IllegalArgumentException("block offset out of range: " + blockOffset);
    }
    if (index < 0 || index >= MAX_RECORDS_PER_BLOCK) {
      throw new IllegalArgumentException("index in block out of range: " + index);
    }
    return (segment << SEGMENT_SHIFT) | (blockOffset << OFFSET_SHIFT) | index;
  }

  public static long segment(long address) {
    return address >>> SEGMENT_SHIFT;
  }

  public static long blockOffset(long address) {
    return (address >>> OFFSET_SHIFT) & MAX_SEGMENT_BYTES;
  }

  public static int index(long address) {
    return (int) (address & (MAX_RECORDS_PER_BLOCK - 1));
  }

  /** The address of the block holding {@code address} (index 0): a key for block caches. */
  public static long blockKey(long address) {
    return address & ~(long) (MAX_RECORDS_PER_BLOCK - 1);
  }

  /** "segment/offset/index", for messages and dumps. */
  public static String toString(long address) {
    return segment(address) + "/" + blockOffset(address) + "/" + index(address);
  }
}
