package io.docstore.queue;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Finished blocks the writer has not written yet, back to back, so that page-sized blocks are
 * written several at a time (one system call for up to {@code blockSize} bytes), with what the
 * segment and the counters need about them. Not thread-safe: the writer's, under its lock.
 */
final class PendingBlocks {

  private byte[] bytes = new byte[16 * 1024];
  private int length;
  private int[] crcs = new int[16];
  private int count;
  private long lastSequence;
  private long rawBytes;
  private int compressed;

  /** Appends a finished block ({@code block}'s remaining bytes). */
  void add(ByteBuffer block, int crc, long blockLastSequence, long rawLength, boolean isCompressed) {
    int n = block.remaining();
    if (bytes.length < length + n) {
      bytes = Arrays.copyOf(bytes, Math.max(length + n, bytes.length * 2));
    }
    if (count == crcs.length) {
      crcs = Arrays.copyOf(crcs, count * 2);
    }
    block.get(block.position(), bytes, length, n);
    length += n;
    crcs[count++] = crc;
    lastSequence = Math.max(lastSequence, blockLastSequence);
    rawBytes += rawLength;
    compressed += isCompressed ? 1 : 0;
  }

  boolean isEmpty() {
    return count == 0;
  }

  /** Bytes pending. */
  int length() {
    return length;
  }

  /** The pending blocks, back to back. */
  ByteBuffer buffer() {
    return ByteBuffer.wrap(bytes, 0, length);
  }

  /** The crc fields of the pending blocks, in order ({@link #count} of them). */
  int[] crcs() {
    return crcs;
  }

  int count() {
    return count;
  }

  /** Last sequence of a record in a pending block; 0 if they hold none (padding only). */
  long lastSequence() {
    return lastSequence;
  }

  long rawBytes() {
    return rawBytes;
  }

  int compressed() {
    return compressed;
  }

  void clear() {
    length = 0;
    count = 0;
    lastSequence = 0;
    rawBytes = 0;
    compressed = 0;
  }
}
