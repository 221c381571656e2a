package io.docstore.queue;

import io.docstore.queue.format.BlockFormat;

/**
 * Where blocks of records stored one by one (segment format 3) go so that none straddles two 4 KiB
 * pages unless it holds one record larger than a page: how far a block may grow, when it is padded
 * to its page's end, and when a padding block goes before it (docs/formats/segment.md, "one page
 * per block"). Pure functions of offsets and sizes.
 */
final class PageLayout {

  /** Page size such blocks are kept within: a cold read of one is one page. */
  static final int PAGE = 4096;

  /** Room at the end of a page below which a block is padded to the page's end. */
  static final int MIN_ROOM = 64;

  private PageLayout() {}

  /**
   * Bytes a block starting at {@code offset} may take, its first record costing {@code firstCost}:
   * to the end of the page that record ends in, and at most a header plus {@code blockSize} (unless
   * the record alone needs more).
   */
  static int capacityAt(long offset, int firstCost, int blockSize) {
    long end = offset + BlockFormat.HEADER_LENGTH + firstCost;
    long pageEnd = (end + PAGE - 1) / PAGE * PAGE;
    return (int)
        Math.min(
            pageEnd - offset,
            Math.max(
                BlockFormat.HEADER_LENGTH + firstCost,
                BlockFormat.HEADER_LENGTH + (long) blockSize));
  }

  /**
   * Zero bytes to pad a block ending at {@code end} with: the rest of its page when less than
   * {@link #MIN_ROOM} would be left, or when the next record (stored cost {@code nextCost}, -1 if
   * unknown) would not fit there but fits in a page; never at the segment's end.
   */
  static int padAfter(long end, int nextCost, long segmentSize) {
    int roomAfter = (int) ((PAGE - end % PAGE) % PAGE);
    int next = BlockFormat.HEADER_LENGTH + nextCost;
    boolean pad =
        roomAfter > 0
            && (roomAfter < MIN_ROOM || (nextCost >= 0 && next > roomAfter && next <= PAGE))
            && end + roomAfter < segmentSize;
    return pad ? roomAfter : 0;
  }

  /**
   * Bytes of padding block to write at {@code pos} before a block whose first record costs {@code
   * cost}: the rest of the page if the record does not fit there but fits in a page (the rest of
   * the next page too when less than a padding block's 25 bytes are left), else 0; 0 too near the
   * segment's end (a padding block never makes a segment roll).
   */
  static int gapBefore(long pos, int cost, long segmentSize) {
    int room = (int) (PAGE - pos % PAGE);
    int need = BlockFormat.HEADER_LENGTH + cost;
    if (need <= room || room == PAGE || need > PAGE) {
      return 0;
    }
    int gap = room < BlockFormat.HEADER_LENGTH + 1 ? room + PAGE : room;
    return pos + gap >= segmentSize ? 0 : gap;
  }
}
