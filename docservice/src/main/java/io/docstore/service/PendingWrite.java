package io.docstore.service;

import java.util.List;

/**
 * Records a write appended to the queue and not yet waited for ({@link DocStore#appendFromLog}):
 * {@link DocStore#awaitWrite} returns once they are durable and readable. Lets the Kafka ingest
 * append the next batch while the last one is being synced. Immutable; opaque outside this package.
 */
public final class PendingWrite {

  /** A write of nothing: done at once. */
  static final PendingWrite NOTHING = new PendingWrite(List.of(), List.of(), 0, 0, 0);

  final List<Update> updates;
  final List<Written> out;
  final long last;
  final long discards;
  final long startedNanos;

  PendingWrite(
      List<Update> updates, List<Written> out, long last, long discards, long startedNanos) {
    this.updates = updates;
    this.out = out;
    this.last = last;
    this.discards = discards;
    this.startedNanos = startedNanos;
  }
}
