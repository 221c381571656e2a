package io.docstore.queue;

/**
 * One record read back from the queue. {@code body} is empty (length 0) for {@link Op#DELETE}. The
 * body array is the caller's own copy.
 */
public record QueueRecord(
    long address, long id, long sequence, Op op, long acceptedAtMillis, byte[] body) {}
