package io.docstore.client;

import java.util.Map;

/**
 * {@link DocClient#putAll} was answered, but the server refused some of its documents (invalid
 * JSON, not an object, too large): those were not applied, and every other one was, durably. Reason
 * {@link DocClientException.Reason#REJECTED}.
 */
public final class BulkWriteException extends DocClientException {

  private final Map<Long, Long> applied;
  private final Map<Long, String> refused;

  BulkWriteException(String message, Map<Long, Long> applied, Map<Long, String> refused) {
    super(Reason.REJECTED, message, 200, refused.values().iterator().next(), null);
    this.applied = Map.copyOf(applied);
    this.refused = Map.copyOf(refused);
  }

  /** The documents applied: ID to the sequence number each was acknowledged with. */
  public Map<Long, Long> applied() {
    return applied;
  }

  /** The documents refused: ID to the server's reason. */
  public Map<Long, String> refused() {
    return refused;
  }
}
