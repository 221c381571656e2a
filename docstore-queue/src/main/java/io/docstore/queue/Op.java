package io.docstore.queue;

/**
 * What a record does to its document, and its op code in the segment format ({@code
 * docs/formats/segment.md}, "Record kinds"). The body of a record of each kind is laid out by
 * {@link RecordBody}.
 *
 * <ul>
 *   <li>{@link #PUT} (0): the body is the document.
 *   <li>{@link #DELETE} (1): no body.
 *   <li>{@link #PUT_EXPIRING} (2, segment version 5): {@code expiresAtMillis:u64} then the
 *       document.
 *   <li>{@link #RELOCATED} (3, segment version 5): a live version copied by the space reclamation,
 *       carrying its original sequence and address (see {@link RecordBody}).
 *   <li>{@link #DROPPED} (4, segment version 5): {@code originalSequence:u64 originalAddress:u64},
 *       an expired version the space reclamation gave up.
 *   <li>{@link #GROUPS} (5, segment version 6): the projections of a document's field groups,
 *       written just before the document's PUT (or re-projected on their own); see {@link
 *       RecordBody}.
 *   <li>{@link #SOURCE} (6, segment version 7): where the records after it came from in the update
 *       log (a Kafka partition and the offsets of its messages); see {@link RecordBody#source}.
 * </ul>
 */
public enum Op {
  PUT(0),
  DELETE(1),
  PUT_EXPIRING(2),
  RELOCATED(3),
  DROPPED(4),
  GROUPS(5),
  SOURCE(6);

  private static final Op[] BY_CODE = values();

  /** The op code stored in each record header. */
  public final byte code;

  Op(int code) {
    this.code = (byte) code;
  }

  /**
   * The op of {@code code}.
   *
   * @throws IllegalArgumentException for a code no version of the format defines (readers check
   *     codes with {@link io.docstore.queue.format.BlockFormat#invalidRecord} before they get here)
   */
  public static Op of(byte code) {
    if (code < 0 || code >= BY_CODE.length) {
      throw new IllegalArgumentException("unknown op code " + code);
    }
    return BY_CODE[code];
  }

  /** Whether a record of this kind makes its document readable (possibly until it expires). */
  public boolean stores() {
    return this == PUT || this == PUT_EXPIRING;
  }
}
