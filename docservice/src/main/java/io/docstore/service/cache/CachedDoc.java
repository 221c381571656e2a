package io.docstore.service.cache;

/**
 * A cache entry: a document version, or a tombstone when {@code body} is null.
 *
 * @param sequence the queue sequence number of the version (the entry's version)
 * @param body the document bytes, or null for a tombstone
 */
public record CachedDoc(long sequence, byte[] body) {

  public boolean deleted() {
    return body == null;
  }
}
