package io.docstore.client;

/**
 * A call through {@link DocClient} failed. {@link #reason()} says how, so a caller can decide
 * without parsing the message; a server's own explanation, when it gave one, is in {@link
 * #serverMessage()} (and in the message).
 *
 * <p>A write that failed with {@link Reason#UNREACHABLE} after connecting, or with {@link
 * Reason#TIMEOUT}, may or may not have been applied; sending it again is safe (the newest version
 * wins). A write refused with any other reason was not acknowledged.
 */
public class DocClientException extends RuntimeException {

  /** How a call failed. */
  public enum Reason {
    /** No connection to the server: refused, lost, or no server connected within the timeout. */
    UNREACHABLE,
    /** The server did not answer within the request (reads) or write timeout. */
    TIMEOUT,
    /**
     * The request exceeds a limit: a batch over the client's configured limit (checked before
     * sending; the defaults are the server's) or one the server refused as too large (HTTP 413, RPC
     * {@code too_many_ids} or {@code frame_too_large}).
     */
    TOO_LARGE,
    /**
     * The server refused the request as invalid or unauthorized (HTTP 4xx other than 413, RPC
     * {@code bad_id}, {@code unknown_group} and the like); sending it again will not help.
     */
    REJECTED,
    /**
     * The server failed: HTTP 5xx (write not durable, disk full, overloaded), an RPC ERROR frame
     * such as {@code overloaded}, a document reported corrupt or unreadable, or an answer that
     * breaks the protocol.
     */
    SERVER_ERROR,
    /**
     * The server does not serve the document's partition (RPC {@code wrong_shard}, HTTP 421): the
     * caller's shard map is out of date, as during a partition's move. {@link ShardedDocClient}
     * fetches the map again and retries.
     */
    WRONG_SHARD,
    /** The calling thread was interrupted. */
    INTERRUPTED,
    /** The client was closed. */
    CLOSED
  }

  private final Reason reason;
  private final int httpStatus;
  private final String serverMessage;

  /**
   * @param httpStatus the HTTP status of the answer, 0 if there was none (RPC, or no answer)
   * @param serverMessage the server's reason text, null if it gave none
   */
  public DocClientException(
      Reason reason, String message, int httpStatus, String serverMessage, Throwable cause) {
    super(message, cause);
    this.reason = reason;
    this.httpStatus = httpStatus;
    this.serverMessage = serverMessage;
  }

  public DocClientException(Reason reason, String message) {
    this(reason, message, 0, null, null);
  }

  public DocClientException(Reason reason, String message, Throwable cause) {
    this(reason, message, 0, null, cause);
  }

  public Reason reason() {
    return reason;
  }

  /** The HTTP status the admin port answered, 0 for RPC reads and when no answer came. */
  public int httpStatus() {
    return httpStatus;
  }

  /**
   * The server's reason text ({@code "error"} of an HTTP answer, an RPC error message), or null.
   */
  public String serverMessage() {
    return serverMessage;
  }
}
