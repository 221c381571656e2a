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
  /** The dictionary the blocks' records were compressed with (the active segment must start with it), or null. */
  io.docstore.queue.block.RecordDictionary dictionary;
  /** Start of block {@code i} in {@link #data}; {@code start[count]} is the end of the last. */
  final int[] start;
  final int[] crc;
  final long[] lastSequence;
  final int[] rawLength;
  final int[] records;
  final long[] bodyBytes;
  /** Filled by the writer: the address of each block's first record. */
  final long[] address;

  /** Room for {@code capacity} blocks. */
  EncodedBlocks(int capacity) {
    start = new int[capacity + 1];
    crc = new int[capacity];
    lastSequence = new long[capacity];
    rawLength = new int[capacity];
    records = new int[capacity];
    bodyBytes = new long[capacity];
    address = new long[capacity];
  }

  void clear() {
    count = 0;
    start[0] = 0;
  }

  /** Appends an encoded block (position to limit of {@code block}); at most the capacity. */
  void add(ByteBuffer block, int blockCrc, long last, int raw, int recordCount, long bodies) {
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
