package io.docstore.service;

/**
 * One update for the store: a new version of a document, or its deletion.
 *
 * @param id the document ID (non-negative)
 * @param body the document bytes for a put; null for a delete
 * @param discoveredAtMillis the document's {@code discovered_at} (epoch millis) when the input
 *     carried one, else -1; used only for the freshness metric
 */
public record Update(long id, byte[] body, long discoveredAtMillis) {

  public static Update put(long id, byte[] body) {
    return new Update(id, body, -1);
  }

  public static Update delete(long id) {
    return new Update(id, null, -1);
  }

  public boolean isDelete() {
    return body == null;
  }
}
