package io.docstore.client;

/**
 * One stored version of a document as readers see it.
 *
 * @param id the document ID (non-negative)
 * @param sequence the queue sequence number of this version; it increases with every update, so it
 *     doubles as the version (HTTP ETag, cache entry version)
 * @param acceptedAtMillis when the updater accepted this version (epoch millis); 0 when the version
 *     was served from the cache, whose entries do not carry it
 * @param body the document bytes (JSON)
 */
public record Document(long id, long sequence, long acceptedAtMillis, byte[] body) {}
