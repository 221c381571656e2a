package io.docstore.queue;

import io.docstore.queue.block.BlockBuilder;
import io.docstore.queue.block.RecordDictionary;
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
 * Appends many records at once (a bulk load). The calling thread only gives each record its
 * sequence and hands batches of about {@value #BATCH_BLOCKS} blocks' worth of records to {@code
 * threads} worker threads, which compress the records, pack them into blocks by the rules {@link
 * QueueWriter} follows (a block of records stored one by one stays within a 4 KiB page, laid out as
 * if the batch started on a page: {@link PageLayout}) and encode them; the calling thread then
 * writes each batch in order, with one system call per batch and segment, first padding the segment
 * so that the batch lands at the place in a page its worker assumed (the writer's background fsyncs
 * every {@link QueueOptions#bytesPerSync} bytes keep the final fsync short). The queue's format
 * does not change: a bulk-loaded block is the same block {@link QueueWriter} writes.
 *
 * <p>Exclusive: from {@link DocQueue#bulkAppender} until {@link #finish} or {@link #close} the
 * calling thread holds the writer, and other appenders wait. Use it from that one thread only.
 *
 * <p><b>Bodies are not copied at once:</b> a worker reads {@code body[off, off+len)} later, so the
 * caller must not change it until {@link #finish} or {@link #close} returns.
 *
 * <p><b>Durability point:</b> {@link #finish} writes the last block and fsyncs the active segment
 * once; when it returns every record added is durable, whatever the queue's sync policy. Before it,
 * records are readable as soon as their block is written (and {@link Sink} is told), but a crash
 * may lose any of them after the last segment seal (a segment that fills up is sealed, which forces
 * it). Recovery then cuts the torn tail back to the last whole block, as for ordinary appends: a
 * crash leaves a prefix of the bulk load, never a hole. {@link #close} without {@link #finish}
 * writes what was added, without the fsync.
 */
public final class BulkAppender implements Closeable {

  /**
   * About how many blocks (of {@code blockSize} raw bytes) a worker encodes as one task, and the
   * writer writes with one system call. A batch starts on a page, so the rest of the page before it
   * is padding: with 64, padding blocks were 1.54% of a bulk load of 1M job documents.
   */
  static final int BATCH_BLOCKS = 64;

  /** Told of every record once its block is written, in sequence order, on the calling thread. */
  @FunctionalInterface
  public interface Sink {
    void written(long sequence, long id, Op op, long address) throws IOException;
  }

  /** What a bulk load appended: sequences {@code firstSequence..lastSequence}. */
  public record Result(
      long firstSequence, long lastSequence, long records, long bodyBytes, long storedBytes) {}

  /** Records on their way: added, then packed into blocks and encoded by a worker, then written. */
  private static final class Batch {
    final BlockBuilder builder = new BlockBuilder();
    final EncodedBlocks encoded = new EncodedBlocks(BATCH_BLOCKS);
    long firstSequence;
    int records;

    /** Sum of the records' {@link BlockFormat#storedRecordCost}: where the batch is cut. */
    long rawCost;

    long[] ids = new long[256];
    long[] acceptedAt = new long[256];
    Op[] ops = new Op[256];
    byte[][] bodies = new byte[256][];
    int[] offsets = new int[256];
    int[] lengths = new int[256];

    void add(long id, Op op, long acceptedAtMillis, byte[] body, int off, int len) {
      if (records == ids.length) {
        int n = records * 2;
        ids = Arrays.copyOf(ids, n);
        acceptedAt = Arrays.copyOf(acceptedAt, n);
        ops = Arrays.copyOf(ops, n);
        bodies = Arrays.copyOf(bodies, n);
        offsets = Arrays.copyOf(offsets, n);
        lengths = Arrays.copyOf(lengths, n);
      }
      ids[records] = id;
      acceptedAt[records] = acceptedAtMillis;
      ops[records] = op;
      bodies[records] = body;
      offsets[records] = off;
      lengths[records] = len;
      records++;
      rawCost += BlockFormat.storedRecordCost(len);
    }

    /**
     * Worker thread: packs the records into blocks as {@link QueueWriter#append} does (same {@link
     * PageLayout} rules, the batch taken to start on a page) and encodes them into {@link
     * #encoded}.
     */
    Batch encode(int blockSize) {
      encoded.clear();
      int capacity = 0;
      int blockFirst = 0;
      long blockBodies = 0;
      for (int r = 0; r < records; r++) {
        int len = lengths[r];
        builder.forgetStaged();
        int cost = builder.stage(bodies[r], offsets[r], len);
        if (!builder.isEmpty()
            && (cost < 0 ? !builder.fits(len, blockSize) : !builder.fitsStored(cost, capacity))) {
          endBlock(cost, r - blockFirst, blockBodies);
          cost = builder.stage(bodies[r], offsets[r], len);
        }
        if (builder.isEmpty()) {
          int at = encoded.length();
          if (cost >= 0) {
            int gap = PageLayout.gapBefore(at, cost, Long.MAX_VALUE);
            if (gap > 0) {
              ByteBuffer pad = BlockBuilder.paddingBlock(gap, firstSequence + r);
              encoded.add(pad, pad.getInt(BlockFormat.CRC), firstSequence + r - 1, 0, 0, 0, true);
              at += gap;
            }
          }
          capacity = cost < 0 ? 0 : PageLayout.capacityAt(at, cost, blockSize);
          blockFirst = r;
          blockBodies = 0;
        }
        builder.add(
            firstSequence + r, ids[r], acceptedAt[r], ops[r].code, bodies[r], offsets[r], len);
        blockBodies += len;
        if (cost < 0
            ? builder.full(blockSize)
            : capacity - builder.blockLength() < PageLayout.MIN_ROOM) {
          endBlock(-1, r + 1 - blockFirst, blockBodies);
        }
      }
      if (!builder.isEmpty()) {
        endBlock(-1, records - blockFirst, blockBodies);
      }
      return this;
    }

    /**
     * Finishes the open block, padded to its page's end as the writer would ({@link
     * PageLayout#padAfter}).
     */
    private void endBlock(int nextCost, int blockRecords, long blockBodies) {
      boolean paged = builder.recordsMode();
      int pad =
          paged
              ? PageLayout.padAfter(
                  encoded.length() + builder.blockLength(), nextCost, Long.MAX_VALUE)
              : 0;
      ByteBuffer block = builder.finish(pad);
      encoded.add(
          block,
          builder.lastCrc(),
          builder.lastSequence(),
          builder.lastRawLength(),
          blockRecords,
          blockBodies,
          paged);
    }

    void clear() {
      Arrays.fill(bodies, 0, records, null);
      Arrays.fill(ops, 0, records, null);
      records = 0;
      rawCost = 0;
    }
  }

  private final QueueWriter writer;
  private final Sink sink;
  private final int blockSize;
  private final int maxBodyBytes;
  private final ExecutorService pool;
  private final int maxInFlight;
  private final ArrayDeque<Future<Batch>> inFlight = new ArrayDeque<>();
  private final ArrayDeque<Batch> free = new ArrayDeque<>();
  private final long firstSequence;
  private Batch open;
  private long lastAssigned;

  /** Last sequence in a written block. */
  private long lastWritten;

  private long bodyBytes;
  private long storedBytes;
  private boolean ended;

  /**
   * The writer's dictionary once trained: batches handed out from then on compress records with it.
   */
  private RecordDictionary dictionary;

  private final java.util.List<Batch> batches = new java.util.ArrayList<>();

  BulkAppender(
      QueueWriter writer, QueueOptions options, int threads, Sink sink, long lastSequence) {
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
    this.maxInFlight = 2 * threads;
    this.pool =
        Executors.newFixedThreadPool(
            threads,
            r -> {
              Thread t = new Thread(r, "queue-bulk-encode");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Adds a record; returns its sequence. {@code body} must not change until {@link #finish} or
   * {@link #close}.
   */
  public long add(long id, Op op, long acceptedAtMillis, byte[] body) throws IOException {
    return add(id, op, acceptedAtMillis, body, 0, body.length);
  }

  /**
   * Adds a record whose body is {@code body[off, off+len)}, which must not change until {@link
   * #finish} or {@link #close} returns (a worker copies it later); returns its sequence.
   *
   * @throws IllegalArgumentException as {@link QueueWriter#append}
   */
  public long add(long id, Op op, long acceptedAtMillis, byte[] body, int off, int len)
      throws IOException {
    checkOpen();
    QueueWriter.validate(id, op, len, maxBodyBytes);
    java.util.Objects.checkFromIndexSize(off, len, body.length);
    if (open == null) {
      if (free.isEmpty()) {
        batches.add(new Batch());
        free.add(batches.get(batches.size() - 1));
      }
      open = free.poll();
      open.firstSequence = lastAssigned + 1;
    }
    if (dictionary == null) {
      writer.sample(body, off, len);
    }
    long sequence = ++lastAssigned;
    open.add(id, op, acceptedAtMillis, body, off, len);
    bodyBytes += len;
    if (open.rawCost >= (long) BATCH_BLOCKS * blockSize) {
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
    Batch b = open;
    open = null;
    if (dictionary == null) {
      dictionary = writer.dictionary();
    }
    b.builder.useDictionary(dictionary);
    b.encoded.dictionary = dictionary;
    inFlight.add(pool.submit(() -> b.encode(blockSize)));
    while (!inFlight.isEmpty() && (inFlight.size() >= maxInFlight || inFlight.peek().isDone())) {
      writeHead();
    }
  }

  private void writeHead() throws IOException {
    Batch b;
    try {
      b = inFlight.poll().get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted during a bulk load", e);
    } catch (ExecutionException e) {
      throw new IOException("encoding a block failed", e.getCause());
    }
    EncodedBlocks e = b.encoded;
    int r = 0;
    for (int i = 0; i < e.count; ) {
      int next = writer.writeEncodedBlocks(e, i);
      for (; i < next; i++) {
        storedBytes += e.length(i);
        lastWritten = e.lastSequence[i];
        long segment = Address.segment(e.address[i]);
        long offset = Address.blockOffset(e.address[i]);
        for (int k = 0; k < e.records[i]; k++, r++) {
          sink.written(b.firstSequence + r, b.ids[r], b.ops[r], Address.of(segment, offset, k));
        }
      }
    }
    b.clear();
    free.add(b);
  }

  private void drain() throws IOException {
    if (open != null) {
      submit();
    }
    while (!inFlight.isEmpty()) {
      writeHead();
    }
  }

  /**
   * Writes every block, fsyncs once, releases the writer: the durability point (see the class
   * comment).
   */
  public Result finish() throws IOException {
    checkOpen();
    try {
      drain();
      writer.bulkSync();
    } finally {
      end();
    }
    return new Result(
        firstSequence, lastAssigned, lastAssigned - firstSequence + 1, bodyBytes, storedBytes);
  }

  private void end() {
    if (!ended) {
      ended = true;
      pool.shutdownNow();
      if (inFlight.isEmpty()) {
        batches.forEach(
            b -> b.builder.close()); // else a worker may still use it: left to the collector
      }
      // After a failure the records not yet written are dropped: the next append follows the last
      // written one.
      writer.bulkEnd(lastWritten);
    }
  }

  /**
   * Without {@link #finish}: writes what was added (no fsync) and releases the writer. Idempotent.
   */
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
