package io.docstore.service.store;

import io.docstore.queue.Op;
import io.docstore.queue.QueueRecord;
import io.docstore.queue.RecordBody;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How far reads see each partition of the update log: per partition, the offset of the first
 * message whose records a read may not see yet, every message before it being visible through the
 * index and the cache. A read-side figure, kept up to date by the ingest path (the primary's {@link
 * Indexer}, a replica's ingester) as {@link RecordBatch#ingested} hands it each record once the
 * record is in the index and the cache, in sequence order, by the rules of {@link
 * SourceKeys#position}: a SOURCE record starts its run at the offset of its first record's message
 * (its next offset when it names none, or for a relocated, resolved copy), each of the run's
 * records that follows at the next sequence moves the position to the next record's message (to the
 * run's next offset after the last), and any other record ends the run where it stands (cut short
 * by a crash). Positions never go back, except by {@link #clear} when the index they describe is
 * replaced.
 *
 * <p>Why it is safe to act on: a position {@code P} is published only after every record that
 * brought it there is in the index and the cache, and the records of earlier messages of the
 * partition came before them in the queue, so were applied before. A read that starts after the
 * position was read therefore finds, for a document written by a message of that partition below
 * {@code P}, that write or a newer one (the cache's entries are replaced by the ingest path, never
 * by an older fill).
 *
 * <p>Reading a position is a map lookup: no I/O, no lock, no wait. Thread-safety: one feeding
 * thread at a time (the indexer's lock, the replica's ingest thread), readers from any thread.
 */
public final class VisiblePositions {

  private final ConcurrentHashMap<Integer, AtomicLong> positions = new ConcurrentHashMap<>();

  // The run being followed (feeding side only): the SOURCE record's body, where its fields start,
  // its sequence, how many records it names and how many of them came; null body: none.
  private ByteBuffer run;
  private int runAt;
  private long runSequence;
  private int runCount;
  private int came;
  private AtomicLong runPosition;

  /** The position in {@code partition}; -1 when nothing of it is visible. */
  public long get(int partition) {
    AtomicLong p = positions.get(partition);
    return p == null ? -1 : p.get();
  }

  /** Whether no position of any partition is held. */
  public boolean isEmpty() {
    return positions.isEmpty();
  }

  /** Sets {@code partition}'s position as found when the index was opened (feeding side). */
  public void seed(int partition, long position) {
    run = null;
    of(partition).set(position);
  }

  /**
   * Seeds the partition of SOURCE record {@code source} (the newest one the index holds) where its
   * run starts, when its run's records cannot be read back: a lower bound until the partition's
   * next run is applied. Ignores a record that is not a SOURCE record.
   */
  public void seedFromStart(QueueRecord source) {
    Source s = Source.of(source);
    if (s != null) {
      seed(s.partition, s.start());
    }
  }

  /** Forgets every position: the index they described is being replaced (feeding side). */
  public void clear() {
    run = null;
    positions.clear();
  }

  /**
   * Takes record {@code r} into account, once it is in the index and the cache; records come in
   * sequence order (feeding side).
   */
  public void applied(QueueRecord r) {
    if (run != null) {
      if (r.sequence() == runSequence + 1 + came
          && r.id() == RecordBody.sourceId(run, runAt, came)
          && SourceKeys.inRun(r)) {
        came++;
        raise(
            runPosition,
            came < runCount
                ? RecordBody.sourceOffset(run, runAt, came)
                : RecordBody.sourceNextOffset(run, runAt));
        if (came == runCount) {
          run = null;
        }
        return;
      }
      run = null; // cut short: what it holds stands
    }
    if (!SourceKeys.isSourceKey(r.id())) {
      return;
    }
    if (r.op() == Op.DELETE) { // the partition was dropped (DocStore.dropLogPartition)
      positions.remove((int) (r.id() - SourceKeys.FIRST));
      return;
    }
    Source s = Source.of(r);
    if (s == null) {
      return;
    }
    AtomicLong p = of(s.partition);
    raise(p, s.start());
    if (r.op() == Op.SOURCE && s.count > 0) {
      run = s.body;
      runAt = s.at;
      runSequence = r.sequence();
      runCount = s.count;
      came = 0;
      runPosition = p;
    }
  }

  private AtomicLong of(int partition) {
    return positions.computeIfAbsent(partition, k -> new AtomicLong(-1));
  }

  private static void raise(AtomicLong p, long to) {
    if (to > p.get()) {
      p.set(to);
    }
  }

  /** A SOURCE record's fields (or a relocated copy's, which names no records). */
  private record Source(ByteBuffer body, int at, int partition, int count) {

    /** Null when {@code r} is no SOURCE record, or a damaged one (it then moves nothing). */
    static Source of(QueueRecord r) {
      ByteBuffer body = ByteBuffer.wrap(r.body());
      int length = body.capacity();
      try {
        if (RecordBody.originalOp(r.op(), body, 0, length) != Op.SOURCE) {
          return null;
        }
        int at = RecordBody.documentOffset(r.op(), body, 0, length);
        int count = RecordBody.sourceCount(body, at, length - at);
        return new Source(body, at, RecordBody.sourcePartition(body, at), count);
      } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
        return null;
      }
    }

    /**
     * Where the run starts: its first record's message, or its next offset if it names none (as a
     * relocated copy, written resolved, never does).
     */
    long start() {
      return count == 0
          ? RecordBody.sourceNextOffset(body, at)
          : RecordBody.sourceOffset(body, at, 0);
    }
  }
}
