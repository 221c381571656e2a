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

  byte[] data = new byte[64 * 1024];
  int count;
  /** Start of block {@code i} in {@link #data}; {@code start[count]} is the end of the last. */
  int[] start = new int[33];
  int[] crc = new int[32];
  long[] lastSequence = new long[32];
  int[] rawLength = new int[32];
  int[] records = new int[32];
  long[] bodyBytes = new long[32];
  /** Filled by the writer: the address of each block's first record. */
  long[] address = new long[32];

  void clear() {
    count = 0;
    start[0] = 0;
  }

  /** Appends an encoded block (position 0 to limit of {@code block}). */
  void add(ByteBuffer block, int blockCrc, long last, int raw, int recordCount, long bodies) {
    if (count == crc.length) {
      int n = count * 2;
      start = Arrays.copyOf(start, n + 1);
      crc = Arrays.copyOf(crc, n);
      lastSequence = Arrays.copyOf(lastSequence, n);
      rawLength = Arrays.copyOf(rawLength, n);
      records = Arrays.copyOf(records, n);
      bodyBytes = Arrays.copyOf(bodyBytes, n);
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
    count++;
    start[count] = at + length;
  }

  int length(int i) {
    return start[i + 1] - start[i];
  }
}
