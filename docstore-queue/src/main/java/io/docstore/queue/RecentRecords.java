package io.docstore.queue;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The last {@link #CAPACITY} records the writer appended, kept in memory so that a tailer following
 * close behind the writer (the indexer of a store, which indexes every write right after it is
 * written) takes them from here instead of reading back and decoding the block it just wrote.
 *
 * <p>A ring indexed by sequence number. Each slot is a seqlock: the writer makes its version odd,
 * writes the fields, and makes it even again; a reader takes the fields only if the version was the
 * same even number before and after, and the slot holds the sequence asked for. A slot written over
 * by a later lap, or by a sequence handed out again after a failed block write, is therefore never
 * taken for the wrong record; the caller then reads the file.
 *
 * <p>Bodies are the writer's own copies, never changed after: a record taken from here shares its
 * body array with the ring.
 *
 * <p>Thread-safety: one writer (under the queue writer's lock), any number of readers.
 */
final class RecentRecords {

  /**
   * Records kept: more than a pipelined writer has in flight ahead of its indexer (the Kafka ingest
   * appends up to four polls of ~5,000 records before the first is indexed; with 4,096 the indexer
   * read back nearly every block it had just written).
   */
  static final int CAPACITY = 32768;

  /** Larger bodies are not kept (their records are read from the file). */
  static final int MAX_BODY = 64 << 10;

  /**
   * Bytes of bodies kept at most: the oldest records leave early to make room, so large documents
   * cannot make the ring hold more heap than this (their records are then read from the file).
   */
  static final long MAX_BYTES = 32L << 20;

  private static final int MASK = CAPACITY - 1;
  private static final VarHandle VERSIONS = MethodHandles.arrayElementVarHandle(long[].class);

  private final long[] versions = new long[CAPACITY];
  private final long[] sequences = new long[CAPACITY];
  private final long[] ids = new long[CAPACITY];
  private final long[] addresses = new long[CAPACITY];
  private final long[] acceptedAt = new long[CAPACITY];
  private final Op[] ops = new Op[CAPACITY];
  private final byte[][] bodies = new byte[CAPACITY][];

  /** The length of each slot's kept body (0 if none) and their sum. Writer only. */
  private final int[] lengths = new int[CAPACITY];

  private long bytes;

  /** No kept body has a lower sequence. Writer only. */
  private long oldest = 1;

  /** Remembers an appended record; copies the body. Writer only. */
  void add(long sequence, long id, long address, Op op, long acceptedAtMillis, byte[] body) {
    int s = (int) sequence & MASK;
    long v = beginWrite(s);
    bytes -= lengths[s];
    lengths[s] = 0;
    if (body.length > MAX_BODY) {
      sequences[s] = 0; // not kept: readers go to the file
      bodies[s] = null;
    } else {
      // Sequences handed out again after a discarded block go back; a lap back is overwritten.
      oldest = Math.max(Math.min(oldest, sequence), sequence - CAPACITY + 1);
      while (bytes + body.length > MAX_BYTES && oldest < sequence) {
        drop(oldest++);
      }
      sequences[s] = sequence;
      ids[s] = id;
      addresses[s] = address;
      acceptedAt[s] = acceptedAtMillis;
      ops[s] = op;
      bodies[s] = body.length == 0 ? body : body.clone();
      lengths[s] = body.length;
      bytes += body.length;
    }
    endWrite(s, v);
  }

  /** Forgets the record with {@code sequence} if it is kept, under the slot's seqlock. */
  private void drop(long sequence) {
    int s = (int) sequence & MASK;
    if (sequences[s] != sequence || lengths[s] == 0) {
      return;
    }
    long v = beginWrite(s);
    sequences[s] = 0;
    bodies[s] = null;
    bytes -= lengths[s];
    lengths[s] = 0;
    endWrite(s, v);
  }

  /** Makes slot {@code s}'s version odd before its fields change; returns the even one it had. */
  private long beginWrite(int s) {
    long v = versions[s];
    VERSIONS.setOpaque(versions, s, v + 1);
    VarHandle.storeStoreFence();
    return v;
  }

  /** Publishes slot {@code s}'s fields: its version even again, past {@code v}. */
  private void endWrite(int s, long v) {
    VERSIONS.setRelease(versions, s, v + 2);
  }

  /** Bytes of bodies kept now. Writer only (or once it is done). */
  long bytesKept() {
    return bytes;
  }

  /** The record with {@code sequence} if it is still here, else null. */
  QueueRecord get(long sequence) {
    int s = (int) sequence & MASK;
    long v = (long) VERSIONS.getAcquire(versions, s);
    if ((v & 1) != 0 || sequences[s] != sequence) {
      return null;
    }
    QueueRecord r =
        new QueueRecord(addresses[s], ids[s], sequence, ops[s], acceptedAt[s], bodies[s]);
    VarHandle.acquireFence();
    if ((long) VERSIONS.getOpaque(versions, s) != v || r.body() == null || r.op() == null) {
      return null;
    }
    return r;
  }
}
