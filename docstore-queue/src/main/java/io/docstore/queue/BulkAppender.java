package io.docstore.queue;

import io.docstore.queue.block.BlockBuilder;
import io.docstore.queue.format.Address;
import io.docstore.queue.format.BlockFormat;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Appends many records at once (a bulk load): records are gathered into blocks on the calling
 * thread, the blocks are encoded (LZ4 and checksum) by {@code threads} worker threads in parallel,
 * and written to the segments in order by the calling thread. The queue's format does not change: a
 * bulk-loaded block is the same block {@link QueueWriter} writes.
 *
 * <p>Exclusive: from {@link Queue#bulkAppender} until {@link #finish} or {@link #close} the calling
 * thread holds the writer, and other appenders wait. Use it from that one thread only.
 *
 * <p><b>Durability point:</b> {@link #finish} writes the last block and fsyncs the active segment
 * once; when it returns every record added is durable, whatever the queue's sync policy. Before it,
 * records are readable as soon as their block is written (and {@link Sink} is told), but a crash may
 * lose any of them after the last segment seal (a segment that fills up is sealed, which forces it).
 * Recovery then cuts the torn tail back to the last whole block, as for ordinary appends: a crash
 * leaves a prefix of the bulk load, never a hole. {@link #close} without {@link #finish} writes
 * what was added, without the fsync.
 */
public final class BulkAppender implements Closeable {

  /** Told of every record once its block is written, in sequence order, on the calling thread. */
  @FunctionalInterface
  public interface Sink {
    void written(long sequence, long id, Op op, long address) throws IOException;
  }

  /** What a bulk load appended: sequences {@code firstSequence..lastSequence}. */
  public record Result(long firstSequence, long lastSequence, long records, long bodyBytes, long storedBytes) {}

  /** One block on its way: gathered, then encoded by a worker, then written. */
  private static final class Pending {
    final BlockBuilder builder = new BlockBuilder();
    long[] ids = new long[64];
    Op[] ops = new Op[64];
    ByteBuffer encoded;
    int crc;
    long lastSequence;
    int rawLength;
    int count;
    long bodyBytes;

    void add(long sequence, long id, Op op, long acceptedAt, byte[] body, int off, int len) {
      int i = builder.add(sequence, id, acceptedAt, op == Op.PUT ? BlockFormat.OP_PUT : BlockFormat.OP_DELETE, body, off, len);
      if (i == ids.length) {
        ids = Arrays.copyOf(ids, i * 2);
        ops = Arrays.copyOf(ops, i * 2);
      }
      ids[i] = id;
      ops[i] = op;
      bodyBytes += len;
    }

    Pending encode() {
      count = builder.count();
      encoded = builder.finish();
      crc = builder.lastCrc();
      lastSequence = builder.lastSequence();
      rawLength = builder.lastRawLength();
      return this;
    }
  }

  private final QueueWriter writer;
  private final Sink sink;
  private final int blockSize;
  private final int maxBodyBytes;
  private final ExecutorService pool;
  private final int maxInFlight;
  private final ArrayDeque<Future<Pending>> inFlight = new ArrayDeque<>();
  private final ArrayDeque<Pending> free = new ArrayDeque<>();
  private final long firstSequence;
  private Pending open;
  private long lastAssigned;
  /** Last sequence in a written block. */
  private long lastWritten;
  private long bodyBytes;
  private long storedBytes;
  private boolean ended;

  BulkAppender(QueueWriter writer, QueueOptions options, int threads, Sink sink, long lastSequence) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be >= 1, got " + threads);
    }
    this.writer = writer;
    this.sink = sink;
    this.blockSize = options.blockSize();
    this.maxBodyBytes = options.maxBodyBytes();
    this.lastAssigned = lastSequence;
    this.firstSequence = lastSequence + 1;
    this.lastWritten = lastSequence;
    this.maxInFlight = 4 * threads;
    this.pool = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "queue-bulk-encode");
      t.setDaemon(true);
      return t;
    });
  }

  /** Adds a record; returns its sequence. */
  public long add(long id, Op op, long acceptedAtMillis, byte[] body) throws IOException {
    return add(id, op, acceptedAtMillis, body, 0, body.length);
  }

  /**
   * Adds a record whose body is {@code body[off, off+len)} (copied at once); returns its sequence.
   *
   * @throws IllegalArgumentException as {@link QueueWriter#append}
   */
  public long add(long id, Op op, long acceptedAtMillis, byte[] body, int off, int len) throws IOException {
    checkOpen();
    QueueWriter.validate(id, op, len, maxBodyBytes);
    if (open != null && !open.builder.fits(len, blockSize)) {
      submit();
    }
    if (open == null) {
      open = free.isEmpty() ? new Pending() : free.poll();
    }
    long sequence = ++lastAssigned;
    open.add(sequence, id, op, acceptedAtMillis, body, off, len);
    bodyBytes += len;
    if (open.builder.full(blockSize)) {
      submit();
    }
    return sequence;
  }

  private void checkOpen() {
    if (ended) {
      throw new IllegalStateException("bulk appender already finished or closed");
    }
  }

  private void submit() throws IOException {
    Pending p = open;
    open = null;
    inFlight.add(pool.submit(p::encode));
    while (!inFlight.isEmpty() && (inFlight.size() >= maxInFlight || inFlight.peek().isDone())) {
      writeHead();
    }
  }

  private void writeHead() throws IOException {
    Pending p;
    try {
      p = inFlight.poll().get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted during a bulk load", e);
    } catch (ExecutionException e) {
      throw new IOException("encoding a block failed", e.getCause());
    }
    storedBytes += p.encoded.remaining();
    long at = writer.writeEncodedBlock(p.encoded, p.crc, p.lastSequence, p.rawLength, p.count, p.bodyBytes);
    p.bodyBytes = 0;
    long segment = Address.segment(at);
    long offset = Address.blockOffset(at);
    lastWritten = p.lastSequence;
    long first = p.lastSequence - p.count + 1;
    for (int i = 0; i < p.count; i++) {
      sink.written(first + i, p.ids[i], p.ops[i], Address.of(segment, offset, i));
      p.ops[i] = null;
    }
    free.add(p);
  }

  private void drain() throws IOException {
    if (open != null && !open.builder.isEmpty()) {
      submit();
    }
    while (!inFlight.isEmpty()) {
      writeHead();
    }
  }

  /** Writes every block, fsyncs once, releases the writer: the durability point (see the class comment). */
  public Result finish() throws IOException {
    checkOpen();
    try {
      drain();
      writer.bulkSync();
    } finally {
      end();
    }
    return new Result(firstSequence, lastAssigned, lastAssigned - firstSequence + 1, bodyBytes, storedBytes);
  }

  private void end() {
    if (!ended) {
      ended = true;
      pool.shutdownNow();
      // After a failure the records not yet written are dropped: the next append follows the last written one.
      writer.bulkEnd(lastWritten);
    }
  }

  /** Without {@link #finish}: writes what was added (no fsync) and releases the writer. Idempotent. */
  @Override
  public void close() throws IOException {
    if (ended) {
      return;
    }
    try {
      drain();
    } finally {
      end();
    }
  }
}
