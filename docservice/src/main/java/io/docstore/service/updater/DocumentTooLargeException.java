package io.docstore.service.updater;

/**
 * An update's document is over the body size limit: the one invalid update that is too large rather
 * than malformed (HTTP answers it 413). The message is the reason shown to the client.
 */
public final class DocumentTooLargeException extends InvalidUpdateException {

  private static final long serialVersionUID = 1L;

  public DocumentTooLargeException(int bytes, int limit) {
    super("document is " + bytes + " bytes, over the limit of " + limit);
  }
}
