package io.docstore.queue;

/**
 * A read by address found the record's segment hollow: the space reclamation relocated the record
 * (or found it garbage) and reclaimed the segment. For a reader that looked the address up before
 * the relocation reached the index, a new lookup finds the record's new address.
 */
public final class ReclaimedAddressException extends IllegalArgumentException {

  public ReclaimedAddressException(String message) {
    super(message);
  }
}
