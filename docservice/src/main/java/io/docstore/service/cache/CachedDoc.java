package io.docstore.service.cache;

/**
 * A cache entry: a document version, or a tombstone when {@code body} is null.
 *
 * @param sequence the queue sequence number of the version (the entry's version)
 * @param body the document bytes, or null for a tombstone
 * @param expiresAtMillis when the version expires (epoch milliseconds), or 0 if it never does
 */
public record CachedDoc(long sequence, byte[] body, long expiresAtMillis) {

  /** A version that never expires, or a tombstone. */
  public CachedDoc(long sequence, byte[] body) {
    this(sequence, body, 0);
  }

  public boolean deleted() {
    return body == null;
  }

  /** Whether a reader at {@code nowMillis} gets the document (not deleted, not expired). */
  public boolean readableAt(long nowMillis) {
    return body != null && (expiresAtMillis == 0 || nowMillis < expiresAtMillis);
  }
}
