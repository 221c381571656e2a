package io.docstore.service.store;

import io.docstore.queue.Op;
import io.docstore.queue.QueueRecord;
import io.docstore.queue.QueueTailer;
import io.docstore.queue.RecordBody;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Where a shard fed by the update log (Kafka) stands in each partition, kept in the queue itself
 * (docs/formats/segment.md, SOURCE): each run of records consumed from a partition is preceded, in
 * one hold of the writer's lock, by a SOURCE record naming the partition and the offset of each
 * record's message, and the index maps the partition's <em>source key</em> to the newest SOURCE
 * record. The position to resume from is then read from the queue ({@link #position}): the offset
 * after the run's last durable record. So a crash anywhere in a run resumes exactly after the last
 * record that survived it; nothing is skipped and nothing applied twice.
 *
 * <p>Source keys are the 65,536 index keys just below 2^62, so no document may have those IDs
 * ({@link GroupKeys#checkDocumentId} refuses them).
 */
public final class SourceKeys {

  /** The most partitions a store follows. */
  public static final int MAX_PARTITIONS = 1 << 16;

  /** The first source key: the key of partition 0. */
  public static final long FIRST = GroupKeys.BIT - MAX_PARTITIONS;

  /**
   * What {@link #position} answers for a run still being written (the queue's end is not final).
   */
  public static final long OPEN_RUN = -2;

  private SourceKeys() {}

  /** The index key of {@code partition}'s newest SOURCE record. */
  public static long key(int partition) {
    if (partition < 0 || partition >= MAX_PARTITIONS) {
      throw new IllegalArgumentException(
          "partition " + partition + ": at most " + MAX_PARTITIONS + " partitions, from 0");
    }
    return FIRST + partition;
  }

  /** The partition whose source key {@code key} is. */
  public static int partition(long key) {
    if (!isSourceKey(key)) {
      throw new IllegalArgumentException(key + " is not a source key");
    }
    return (int) (key - FIRST);
  }

  /** Whether {@code key} is a source key rather than a document's. */
  public static boolean isSourceKey(long key) {
    return key >= FIRST && key < GroupKeys.BIT;
  }

  /**
   * The offset of the next message to consume from the partition that SOURCE record {@code source}
   * (or a relocated copy of one) names: the offset of the first of its run's records that is not in
   * the queue, or its next offset when all are. The run's records follow it at consecutive
   * sequences; {@code after} reads the queue from the sequence after it. A record that is not the
   * one the run names (another ID, or a record no run holds) ends it: the run was cut short by a
   * crash and what follows was appended after the restart.
   *
   * @param endIsFinal whether the queue's end also ends the run (nothing is being appended, as at
   *     start-up); if not, a run that reaches the end is still being written: {@link #OPEN_RUN}
   * @throws IllegalArgumentException if {@code source} is not a SOURCE record or is damaged
   */
  public static long position(QueueRecord source, QueueTailer after, boolean endIsFinal)
      throws IOException {
    ByteBuffer body = ByteBuffer.wrap(source.body());
    int at = RecordBody.documentOffset(source.op(), body, 0, body.capacity());
    if (RecordBody.originalOp(source.op(), body, 0, body.capacity()) != Op.SOURCE) {
      throw new IllegalArgumentException("record " + source.sequence() + " is not a SOURCE record");
    }
    int count = RecordBody.sourceCount(body, at, body.capacity() - at);
    long next = RecordBody.sourceNextOffset(body, at);
    if (source.op() == Op.RELOCATED || count == 0) {
      return next; // a relocated copy is written resolved: its run is complete (count 0)
    }
    for (int i = 0; i < count; i++) {
      QueueRecord r = after.poll();
      if (r == null) {
        return endIsFinal ? RecordBody.sourceOffset(body, at, i) : OPEN_RUN;
      }
      if (r.sequence() != source.sequence() + 1 + i
          || r.id() != RecordBody.sourceId(body, at, i)
          || !inRun(r)) {
        return RecordBody.sourceOffset(body, at, i);
      }
    }
    return next;
  }

  /** Whether {@code r} is of a kind a run holds: a user's write and its projections. */
  static boolean inRun(QueueRecord r) {
    Op op = r.op();
    return op == Op.PUT
        || op == Op.PUT_EXPIRING
        || op == Op.DELETE
        || RecordBody.groupsWithDocument(op, ByteBuffer.wrap(r.body()), 0);
  }

  /**
   * The resolved copy of SOURCE record {@code source} whose run ends at {@code position}: a SOURCE
   * body of no records with that next offset, which the space reclamation relocates in its place.
   */
  public static byte[] resolved(QueueRecord source, long position) {
    ByteBuffer body = ByteBuffer.wrap(source.body());
    int at = RecordBody.documentOffset(source.op(), body, 0, body.capacity());
    return RecordBody.source(
        RecordBody.sourcePartition(body, at), position, new long[0], new long[0]);
  }
}
