package io.docstore.service.bulk;

import io.docstore.index.LsmIndex;
import io.docstore.index.bulk.SortedRun;
import io.docstore.io.DirectoryLock;
import io.docstore.queue.BulkAppender;
import io.docstore.queue.DocQueue;
import io.docstore.queue.Op;
import io.docstore.queue.RecordBody;
import io.docstore.service.DocStore;
import io.docstore.service.DocStoreOptions;
import io.docstore.service.store.GroupKeys;
import io.docstore.service.store.IndexCheckpoint;
import io.docstore.service.updater.AsciiScan;
import io.docstore.service.updater.InvalidUpdateException;
import io.docstore.service.updater.UpdateParser;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.LongConsumer;

/**
 * Bulk load of an NDJSON update file ({@code docstore import --bulk}), the Rockset recipe: big
 * batches, parallel work, index files built off the write path.
 *
 * <ol>
 *   <li>the input is cut into chunks of whole lines (about 1 MiB, by a {@link ChunkReader}) and the
 *       chunks are parsed and validated on {@code threads} threads (invalid lines are reported,
 *       never applied), by {@link UpdateParser#parseSlice} (a single-pass scanner, with Jackson
 *       deciding whatever it is unsure of);
 *   <li>in input order, the documents go to a {@link BulkAppender}, which plans the queue blocks on
 *       this thread, copies the documents into them and encodes them (LZ4, checksum) on {@code
 *       threads} threads, 32 blocks a task, and writes them in order, 32 blocks a system call, and
 *       fsyncs once at the end (the writer's background fsyncs every {@code bytes-per-sync} keep
 *       that one short; the documents are read from the input chunks, so a chunk is kept until its
 *       blocks are written);
 *   <li>the (id, address) pairs are gathered in a {@link SortedRun}, radix-sorted (the last update
 *       of an id wins) and written as one index file installed through the index manifest ({@link
 *       LsmIndex#ingestSorted}), skipping the index's WAL and memory table;
 *   <li>the index checkpoint is moved to the last loaded sequence.
 * </ol>
 *
 * <p>Durability and crashes: when {@link #load} returns everything is durable. A crash before the
 * queue's fsync leaves a prefix of the load in the queue and the old index and checkpoint; a crash
 * after it but before the checkpoint makes the next open re-index the loaded records from the queue
 * through the ordinary path (same result, slower). So re-running a failed load is always safe: the
 * newest version of each document wins.
 *
 * <p>Memory: 16 bytes per loaded record for the sorted run (32 while sorting), plus about {@code 4
 * * threads} MiB of input chunks in flight.
 */
public final class BulkLoad {

  /** Input chunk: whole lines of about this many bytes are parsed as one task. */
  static final int CHUNK_BYTES = 1 << 20;

  /** Most error lines kept in a {@link Result}; the count is always exact. */
  public static final int MAX_REPORTED_ERRORS = 1000;

  /** What a load did. {@code firstSequence > lastSequence} when nothing was loaded. */
  public record Result(
      long lines,
      long loaded,
      long failed,
      List<String> errors,
      long firstSequence,
      long lastSequence,
      long inputBytes) {}

  private BulkLoad() {}

  /**
   * Loads {@code in} into the store in {@code dir} (offline: no server may hold it). Opens the
   * store once first, so that queue records the index had not yet applied are indexed before the
   * bulk load moves the checkpoint past them.
   */
  public static Result load(
      Path dir, DocStoreOptions options, InputStream in, int threads, LongConsumer progress)
      throws IOException {
    DocStore.open(dir, options).close();
    try (DirectoryLock lock = DirectoryLock.acquire(dir);
        DocQueue queue = DocQueue.open(dir.resolve("queue"), options.queueOptions());
        LsmIndex index = LsmIndex.open(dir.resolve("index"), options.indexOptions())) {
      if (IndexCheckpoint.read(options.fileSystem(), dir) != queue.lastSequence()) {
        throw new IOException(
            "index checkpoint of "
                + dir
                + " is behind its queue after reopening; not bulk loading");
      }
      Result r =
          loadInto(
              queue,
              index,
              in,
              threads,
              options.maxBodyBytes(),
              options.defaultTtl().toMillis(),
              options.groups().configured(),
              progress);
      if (r.loaded() > 0) {
        IndexCheckpoint.publish(
            options.fileSystem(), dir, r.lastSequence(), System.currentTimeMillis());
      }
      return r;
    }
  }

  /**
   * The load itself, into an open queue and index (the bench's docstore engine calls this too):
   * queue appended and fsynced, index ingested. The caller owns the checkpoint, if any. A line
   * without an expiry of its own gets {@code defaultTtlMillis} (0: none). With {@code groups} (the
   * store has field groups) the loaded documents' projections are cleared: they are loaded without
   * any, and an older version's must not outlive them.
   */
  public static Result loadInto(
      DocQueue queue,
      LsmIndex index,
      InputStream in,
      int threads,
      int maxBodyBytes,
      long defaultTtlMillis,
      boolean groups,
      LongConsumer progress)
      throws IOException {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be >= 1, got " + threads);
    }
    UpdateParser parser = new UpdateParser(maxBodyBytes);
    long maxId = groups ? GroupKeys.MAX_DOCUMENT_ID : Long.MAX_VALUE;
    int maxLineBytes = (int) Math.min(Integer.MAX_VALUE - 16, 2L * maxBodyBytes + 1024);
    SortedRun run = new SortedRun(1 << 16);
    ExecutorService pool =
        Executors.newFixedThreadPool(
            threads,
            r -> {
              Thread t = new Thread(r, "bulk-load-parse");
              t.setDaemon(true);
              return t;
            });
    // Reads the next chunk while this thread hands the current one on (reading is a copy of every
    // byte).
    ExecutorService readAhead =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "bulk-load-read");
              t.setDaemon(true);
              return t;
            });
    long now = System.currentTimeMillis();
    List<String> errors = new ArrayList<>();
    long lines = 0;
    long failed = 0;
    long inputBytes = 0;
    BulkAppender.Result appended;
    try {
      BulkAppender bulk =
          queue.bulkAppender(
              threads,
              (seq, id, op, address) -> {
                run.add(id, op == Op.DELETE ? LsmIndex.DELETED : address);
                if (groups) {
                  run.add(GroupKeys.key(id), LsmIndex.DELETED);
                }
              });
      try {
        ArrayDeque<Future<Chunk>> inFlight = new ArrayDeque<>();
        ChunkReader reader = new ChunkReader(in, CHUNK_BYTES, maxLineBytes);
        Future<ChunkReader.Input> next = readAhead.submit(reader::next);
        ChunkReader.Input input;
        while (true) {
          input = get(next, "reading the input");
          if (input != null) {
            next = readAhead.submit(reader::next);
            ChunkReader.Input i = input;
            inFlight.add(
                pool.submit(() -> Chunk.parse(parser, i.buf(), i.length(), maxLineBytes, maxId)));
          }
          while (!inFlight.isEmpty()
              && (input == null || inFlight.size() >= 2 * threads || inFlight.peek().isDone())) {
            Chunk c = get(inFlight.poll(), "parsing a chunk");
            for (int i = 0; i < c.count; i++) {
              long expires =
                  c.docOffsets[i] < 0
                      ? 0
                      : c.expires[i] != 0
                          ? c.expires[i]
                          : defaultTtlMillis > 0 ? now + defaultTtlMillis : 0;
              if (expires != 0) {
                byte[] body =
                    RecordBody.expiring(
                        expires,
                        Arrays.copyOfRange(
                            c.buf, c.docOffsets[i], c.docOffsets[i] + c.docLengths[i]));
                bulk.add(c.ids[i], Op.PUT_EXPIRING, now, body, 0, body.length);
              } else {
                bulk.add(
                    c.ids[i],
                    c.docOffsets[i] < 0 ? Op.DELETE : Op.PUT,
                    now,
                    c.buf,
                    Math.max(0, c.docOffsets[i]),
                    c.docLengths[i]);
              }
            }
            for (int i = 0; i < c.errorLines.size(); i++) {
              failed++;
              if (errors.size() < MAX_REPORTED_ERRORS) {
                errors.add("line " + (lines + c.errorLines.get(i)) + ": " + c.errorReasons.get(i));
              }
            }
            lines += c.lines;
            inputBytes += c.bytes;
            progress.accept(inputBytes);
          }
          if (input == null) {
            break;
          }
        }
        appended = bulk.finish();
      } finally {
        bulk.close();
      }
    } finally {
      pool.shutdownNow();
      readAhead.shutdownNow();
    }
    run.ingestInto(index);
    return new Result(
        lines,
        appended.records(),
        failed,
        List.copyOf(errors),
        appended.firstSequence(),
        appended.lastSequence(),
        inputBytes);
  }

  private static <T> T get(Future<T> f, String what) throws IOException {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted during a bulk load", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      throw new IOException(what + " failed", e.getCause());
    }
  }

  /** The parsed lines of one chunk: documents by offset into {@link #buf}. */
  static final class Chunk {
    byte[] buf;
    int count;
    long[] ids = new long[1024];
    int[] docOffsets = new int[1024];
    int[] docLengths = new int[1024];
    long[] expires = new long[1024];
    long lines;
    long bytes;
    final List<Long> errorLines = new ArrayList<>();
    final List<String> errorReasons = new ArrayList<>();

    /**
     * @param maxId the largest document ID the store holds (below 2^62 with field groups)
     */
    static Chunk parse(UpdateParser parser, byte[] buf, int n, int maxLineBytes, long maxId) {
      Chunk c = new Chunk();
      c.buf = buf;
      c.bytes = n;
      int start = 0;
      while (start < n) {
        int end = AsciiScan.indexOfNewline(buf, start, n);
        c.lines++;
        int l = end;
        if (l > start && buf[l - 1] == '\r') {
          l--;
        }
        if (l - start > maxLineBytes) {
          c.error("line longer than " + maxLineBytes + " bytes");
        } else if (!blank(buf, start, l)) {
          try {
            UpdateParser.Slice slice = parser.parseSlice(buf, start, l - start);
            if (slice.id() > maxId) {
              c.error(
                  "\"id\" "
                      + slice.id()
                      + " is above "
                      + maxId
                      + " (2^62 - 1), the largest a store with field groups holds");
            } else {
              c.add(slice);
            }
          } catch (InvalidUpdateException e) {
            c.error(e.getMessage());
          }
        }
        start = end + 1;
      }
      return c;
    }

    private void add(UpdateParser.Slice s) {
      if (count == ids.length) {
        ids = java.util.Arrays.copyOf(ids, count * 2);
        docOffsets = java.util.Arrays.copyOf(docOffsets, count * 2);
        docLengths = java.util.Arrays.copyOf(docLengths, count * 2);
        expires = java.util.Arrays.copyOf(expires, count * 2);
      }
      expires[count] = s.expiresAtMillis();
      ids[count] = s.id();
      docOffsets[count] = s.docOffset();
      docLengths[count] = s.docLength();
      count++;
    }

    private void error(String reason) {
      errorLines.add(lines);
      errorReasons.add(reason);
    }

    private static boolean blank(byte[] b, int from, int to) {
      for (int i = from; i < to; i++) {
        if (b[i] != ' ' && b[i] != '\t') {
          return false;
        }
      }
      return true;
    }
  }
}
