package io.docstore.queue;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Finished blocks the writer has not written yet, back to back, so that page-sized blocks are
 * written several at a time (one system call for up to {@code blockSize} bytes), with what the
 * segment and the counters need about them. Not thread-safe: the writer's, under its lock.
 */
final class PendingBlocks {

  /**
   * Direct, so that a write hands the kernel these bytes without the JDK's copy into a temporary
   * direct buffer; blocks of records are encoded straight into it ({@link #room}).
   */
  private ByteBuffer bytes = ByteBuffer.allocateDirect(16 * 1024);

  private int length;
  private int[] crcs = new int[16];
  private int count;
  private long lastSequence;
  private long rawBytes;
  private int compressed;

  /** Appends a finished block ({@code block}'s remaining bytes). */
  void add(
      ByteBuffer block, int crc, long blockLastSequence, long rawLength, boolean isCompressed) {
    int n = block.remaining();
    room(n).put(length, block, block.position(), n);
    added(n, crc, blockLastSequence, rawLength, isCompressed);
  }

  /**
   * The buffer, with at least {@code n} bytes free from {@link #length()}, for a block encoded in
   * place.
   */
  ByteBuffer room(int n) {
    if (bytes.capacity() < length + n) {
      ByteBuffer grown = ByteBuffer.allocateDirect(Math.max(length + n, bytes.capacity() * 2));
      grown.put(0, bytes, 0, length);
      bytes = grown;
    }
    return bytes;
  }

  /** Counts a block of {@code n} bytes written at {@link #length()} of {@link #room}'s buffer. */
  void added(int n, int crc, long blockLastSequence, long rawLength, boolean isCompressed) {
    if (count == crcs.length) {
      crcs = Arrays.copyOf(crcs, count * 2);
    }
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

  /** The pending blocks, back to back (a view: position 0, limit {@link #length()}). */
  ByteBuffer buffer() {
    return bytes.duplicate().position(0).limit(length);
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
