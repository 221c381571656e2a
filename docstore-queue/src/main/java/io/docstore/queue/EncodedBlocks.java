package io.docstore.queue;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Consecutive encoded blocks in one buffer, as a bulk load's worker leaves them for the writer: the
 * blocks back to back in {@link #data}, and per block what the segment and the counters need. The
 * writer writes a run of them with one system call ({@link QueueWriter#writeEncodedBlocks}) and
 * fills in their addresses. Not thread-safe: handed from one thread to the next.
 */
final class EncodedBlocks {

  /** {@link #pageOffset} of a block not laid out by pages (an LZ4 block). */
  static final int UNALIGNED = -1;

  byte[] data = new byte[64 * 1024];
  int count;

  /**
   * The dictionary the blocks' records were compressed with (the active segment must start with
   * it), or null.
   */
  io.docstore.queue.block.RecordDictionary dictionary;

  /** Start of block {@code i} in {@link #data}; {@code start[count]} is the end of the last. */
  int[] start;

  int[] crc;
  long[] lastSequence;
  int[] rawLength;
  int[] records;
  long[] bodyBytes;

  /**
   * Where block {@code i} was laid out in its page ({@link PageLayout}) as if {@link #data} started
   * on a page, or {@link #UNALIGNED}: the writer puts a run starting with an aligned block at that
   * place in a page, so that no block of records crosses a page.
   */
  int[] pageOffset;

  /** Filled by the writer: the address of each block's first record. */
  long[] address;

  /** Room for {@code capacity} blocks to begin with; it grows. */
  EncodedBlocks(int capacity) {
    start = new int[capacity + 1];
    crc = new int[capacity];
    lastSequence = new long[capacity];
    rawLength = new int[capacity];
    records = new int[capacity];
    bodyBytes = new long[capacity];
    pageOffset = new int[capacity];
    address = new long[capacity];
  }

  void clear() {
    count = 0;
    start[0] = 0;
  }

  /** Bytes of the blocks so far: where the next one starts in {@link #data}. */
  int length() {
    return start[count];
  }

  /** Appends an encoded block (position to limit of {@code block}). */
  void add(
      ByteBuffer block,
      int blockCrc,
      long last,
      int raw,
      int recordCount,
      long bodies,
      boolean aligned) {
    if (count == crc.length) {
      int n = count * 2;
      start = Arrays.copyOf(start, n + 1);
      crc = Arrays.copyOf(crc, n);
      lastSequence = Arrays.copyOf(lastSequence, n);
      rawLength = Arrays.copyOf(rawLength, n);
      records = Arrays.copyOf(records, n);
      bodyBytes = Arrays.copyOf(bodyBytes, n);
      pageOffset = Arrays.copyOf(pageOffset, n);
      address = Arrays.copyOf(address, n);
    }
    int at = start[count];
    int length = block.remaining();
    if (data.length < at + length) {
      data = Arrays.copyOf(data, Math.max(at + length, data.length * 2));
    }
    block.get(block.position(), data, at, length);
    crc[count] = blockCrc;
    lastSequence[count] = last;
    rawLength[count] = raw;
    records[count] = recordCount;
    bodyBytes[count] = bodies;
    pageOffset[count] = aligned ? at % PageLayout.PAGE : UNALIGNED;
    count++;
    start[count] = at + length;
  }

  int length(int i) {
    return start[i + 1] - start[i];
  }
}
