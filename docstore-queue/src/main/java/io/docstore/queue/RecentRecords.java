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

  static final int CAPACITY = 4096;

  /** Larger bodies are not kept (their records are read from the file). */
  static final int MAX_BODY = 64 << 10;

  private static final int MASK = CAPACITY - 1;
  private static final VarHandle VERSIONS = MethodHandles.arrayElementVarHandle(long[].class);

  private final long[] versions = new long[CAPACITY];
  private final long[] sequences = new long[CAPACITY];
  private final long[] ids = new long[CAPACITY];
  private final long[] addresses = new long[CAPACITY];
  private final long[] acceptedAt = new long[CAPACITY];
  private final Op[] ops = new Op[CAPACITY];
  private final byte[][] bodies = new byte[CAPACITY][];

  /** Remembers an appended record; copies the body. Writer only. */
  void add(long sequence, long id, long address, Op op, long acceptedAtMillis, byte[] body) {
    int s = (int) sequence & MASK;
    long v = versions[s];
    VERSIONS.setOpaque(versions, s, v + 1);
    VarHandle.storeStoreFence();
    if (body.length > MAX_BODY) {
      sequences[s] = 0; // not kept: readers go to the file
    } else {
      sequences[s] = sequence;
      ids[s] = id;
      addresses[s] = address;
      acceptedAt[s] = acceptedAtMillis;
      ops[s] = op;
      bodies[s] = body.length == 0 ? body : body.clone();
    }
    VERSIONS.setRelease(versions, s, v + 2);
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
