package io.docstore.client;

/**
 * A read through {@link DocClient} failed: no server answered in time, every attempt failed, the
 * server refused the request, or a document is corrupt on every server asked.
 */
public final class DocClientException extends RuntimeException {

  public DocClientException(String message) {
    super(message);
  }

  public DocClientException(String message, Throwable cause) {
    super(message, cause);
  }
}
