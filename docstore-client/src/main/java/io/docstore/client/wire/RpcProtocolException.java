package io.docstore.client.wire;

/**
 * A frame that breaks the wire format, or a request the server refuses. Carries the {@link
 * RpcFormat} error code sent (or received) in the ERROR frame.
 */
public final class RpcProtocolException extends RuntimeException {

  private final int code;
  private final String detail;

  public RpcProtocolException(int code, String detail) {
    super(RpcFormat.errorName(code) + ": " + detail);
    this.code = code;
    this.detail = detail;
  }

  /** The message without the error name, as sent in an ERROR frame. */
  public String detail() {
    return detail;
  }

  /** The {@code RpcFormat.ERR_*} code. */
  public int code() {
    return code;
  }

  /** Whether the connection must be closed after this error (framing can no longer be trusted). */
  public boolean closesConnection() {
    return code == RpcFormat.ERR_BAD_VERSION
        || code == RpcFormat.ERR_FRAME_TOO_LARGE
        || code == RpcFormat.ERR_MALFORMED
        || code == RpcFormat.ERR_SHUTTING_DOWN;
  }
}
