package io.docstore.queue;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Receives one record from {@link QueueReader#read} while its bytes still lie in a buffer the
 * reader owns (the segment's mapping, or the reading thread's decoded block), so a caller can copy
 * the body straight to where it goes (a network buffer) instead of through a {@code byte[]} of its
 * own.
 */
@FunctionalInterface
public interface RecordSink {

  /**
   * Called once per {@link QueueReader#read}, on the reading thread, with the record's fields; its
   * body is {@code buf}'s bytes {@code [bodyOffset, bodyOffset + bodyLength)} (absolute indices),
   * already verified. {@code buf} is valid only during the call: read it with absolute gets or a
   * duplicate, never keep it, never write to it.
   */
  void accept(
      long id,
      long sequence,
      Op op,
      long acceptedAtMillis,
      ByteBuffer buf,
      int bodyOffset,
      int bodyLength)
      throws IOException;
}
