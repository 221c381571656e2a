package io.docstore.service.http;

/**
 * A client error with the reason to send back (400 unless a more specific status is given). No
 * stack trace.
 */
public class BadRequest extends Exception {

  private static final long serialVersionUID = 1L;

  private final int status;

  public BadRequest(String reason) {
    this(400, reason);
  }

  public BadRequest(int status, String reason) {
    super(reason, null, false, false);
    this.status = status;
  }

  /** 405, naming the methods the endpoint takes. */
  public static BadRequest methodNotAllowed(String allow) {
    return new BadRequest(405, "method not allowed here; allowed: " + allow);
  }

  public int status() {
    return status;
  }
}
