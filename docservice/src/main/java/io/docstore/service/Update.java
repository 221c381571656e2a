package io.docstore.service;

/**
 * One update for the store: a new version of a document, or its deletion.
 *
 * @param id the document ID (non-negative)
 * @param body the document bytes for a put; null for a delete
 * @param discoveredAtMillis the document's {@code discovered_at} (epoch millis) when the input
 *     carried one, else -1; used only for the freshness metric
 * @param expiresAtMillis when a put's document expires (epoch millis), or 0: then the store's
 *     default time to live applies, if one is configured, and else it never expires
 */
public record Update(long id, byte[] body, long discoveredAtMillis, long expiresAtMillis) {

  /** An update without an expiry of its own. */
  public Update(long id, byte[] body, long discoveredAtMillis) {
    this(id, body, discoveredAtMillis, 0);
  }

  public static Update put(long id, byte[] body) {
    return new Update(id, body, -1);
  }

  /** A put of a document that expires at {@code expiresAtMillis} (epoch millis, positive). */
  public static Update put(long id, byte[] body, long expiresAtMillis) {
    return new Update(id, body, -1, expiresAtMillis);
  }

  public static Update delete(long id) {
    return new Update(id, null, -1);
  }

  public boolean isDelete() {
    return body == null;
  }
}
