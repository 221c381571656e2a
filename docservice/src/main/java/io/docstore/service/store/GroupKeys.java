package io.docstore.service.store;

import io.docstore.queue.Op;
import io.docstore.queue.RecordBody;
import java.nio.ByteBuffer;

/**
 * The index keys of field-group projections: one index holds documents and their projections, a
 * document's projections (its GROUPS record) under its ID with bit 62 set (a group-tagged key).
 * Documents of a store with groups therefore have IDs below 2^62, which the write path checks; so a
 * document and its projections change in one {@code putAll} of the one index, and every path that
 * follows the index (checkpoints, re-indexing, live-record counts, rebuilds) follows both.
 */
public final class GroupKeys {

  /** The tag. */
  public static final long BIT = 1L << 62;

  /** The largest document ID a store with groups accepts. */
  public static final long MAX_DOCUMENT_ID = BIT - 1;

  private GroupKeys() {}

  /**
   * Checks a document ID asked for or written: non-negative, not one of the source keys ({@link
   * SourceKeys}), and below 2^62 where the store has groups ({@code groups}), since keys from 2^62
   * on are the documents' group keys.
   *
   * @throws IllegalArgumentException naming the ID and the limit
   */
  public static void checkDocumentId(long id, boolean groups) {
    if (id < 0) {
      throw new IllegalArgumentException("document ID must be non-negative, got " + id);
    }
    if (SourceKeys.isSourceKey(id)) {
      throw new IllegalArgumentException(
          "document ID "
              + id
              + " is reserved: IDs from "
              + SourceKeys.FIRST
              + " (2^62 - 65536) to "
              + MAX_DOCUMENT_ID
              + " are the keys of the update log's positions");
    }
    if (groups && id > MAX_DOCUMENT_ID) {
      throw new IllegalArgumentException(
          "document ID "
              + id
              + " is above "
              + MAX_DOCUMENT_ID
              + " (2^62 - 1), the largest a store with field groups holds");
    }
  }

  /** Whether {@link #checkDocumentId} accepts {@code id} (for paths that must not throw). */
  public static boolean validDocumentId(long id, boolean groups) {
    return id >= 0 && !SourceKeys.isSourceKey(id) && (!groups || id <= MAX_DOCUMENT_ID);
  }

  /** The key of document {@code id}'s projections. */
  public static long key(long id) {
    return id | BIT;
  }

  public static boolean isGroupKey(long key) {
    return (key & BIT) != 0;
  }

  /** The document ID an index key stands for. */
  public static long documentId(long key) {
    return key & ~BIT;
  }

  /**
   * Whether a record of {@code recordId} and kind {@code op} (body at {@code [at, at + length)} of
   * {@code buf}) is what index key {@code key} may map to: a document's own record for a document
   * key, a GROUPS record (or a relocated one) for a group key ({@code groups}: the store has
   * groups, so keys with the tag are group keys), a SOURCE record for a source key ({@link
   * SourceKeys}). False for a damaged RELOCATED body.
   */
  public static boolean matches(
      boolean groups, long key, long recordId, Op op, ByteBuffer buf, int at, int length) {
    boolean group = groups && isGroupKey(key);
    if (recordId != (group ? documentId(key) : key)) {
      return false;
    }
    try {
      Op original = RecordBody.originalOp(op, buf, at, length);
      if (SourceKeys.isSourceKey(key)) {
        return original == Op.SOURCE;
      }
      return group ? original == Op.GROUPS : original.stores();
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
