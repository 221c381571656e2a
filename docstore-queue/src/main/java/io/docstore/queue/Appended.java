package io.docstore.queue;

/** The result of an append: the record's sequence number and its address (positive, never 0). */
public record Appended(long sequence, long address) {}
