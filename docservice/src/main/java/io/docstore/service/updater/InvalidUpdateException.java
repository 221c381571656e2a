package io.docstore.service.updater;

/**
 * An update (a PUT body, one NDJSON line) is malformed; the message is the reason shown to the
 * client.
 */
public class InvalidUpdateException extends Exception {

  private static final long serialVersionUID = 1L;

  public InvalidUpdateException(String reason) {
    super(reason, null, false, false);
  }
}
