package io.docstore.bench.engines;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;

/**
 * Not an engine: the bulk workload's speed reference. It reads the same input file and
 * LZ4-compresses it (lz4-java's fastest fast compressor, the one the queue uses) in pieces of the
 * queue's raw block size, on N threads, and keeps nothing: the speed a bulk load that must compress
 * its input cannot beat on this machine.
 */
final class Lz4Reference implements Engine {

  /** The queue's default raw block size. */
  static final int PIECE = io.docstore.queue.QueueOptions.DEFAULT_BLOCK_SIZE;

  private final AtomicLong compressed = new AtomicLong();

  @Override
  public void bulkLoad(Path ndjson, int threads, int batch) throws IOException {
    LZ4Compressor lz4 = LZ4Factory.fastestInstance().fastCompressor();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    ArrayDeque<Future<?>> inFlight = new ArrayDeque<>();
    ThreadLocal<byte[]> out =
        ThreadLocal.withInitial(() -> new byte[lz4.maxCompressedLength(PIECE)]);
    try {
      BulkInput.chunks(
          ndjson,
          1 << 20,
          (buf, n) -> {
            inFlight.add(
                pool.submit(
                    () -> {
                      byte[] o = out.get();
                      long sum = 0;
                      for (int p = 0; p < n; p += PIECE) {
                        sum += lz4.compress(buf, p, Math.min(PIECE, n - p), o, 0, o.length);
                      }
                      compressed.addAndGet(sum);
                    }));
            while (inFlight.size() > 2 * threads) {
              await(inFlight.poll());
            }
          });
      while (!inFlight.isEmpty()) {
        await(inFlight.poll());
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private static void await(Future<?> f) throws IOException {
    try {
      f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    } catch (ExecutionException e) {
      throw new IOException(e.getCause());
    }
  }

  @Override
  public String bulkPath() {
    return "reference: LZ4 fast compression of the input in "
        + PIECE
        + "-byte pieces on N threads, nothing stored";
  }

  @Override
  public boolean keepsData() {
    return false;
  }

  /** Bytes the last load compressed to. */
  long compressedBytes() {
    return compressed.get();
  }

  @Override
  public void put(byte[] key, byte[] value) {
    throw new IllegalStateException(
        "the LZ4 reference only measures bulk compression; nothing is written to or read from it");
  }

  @Override
  public void delete(byte[] key) {
    throw new IllegalStateException(
        "the LZ4 reference only measures bulk compression; nothing is written to or read from it");
  }

  @Override
  public byte[] get(byte[] key) {
    throw new IllegalStateException(
        "the LZ4 reference only measures bulk compression; nothing is written to or read from it");
  }

  @Override
  public void flush() {
    // Nothing is stored.
  }

  @Override
  public String settings() {
    return "lz4-java "
        + LZ4Factory.fastestInstance()
        + " fast compressor; "
        + PIECE
        + "-byte pieces; compressed to "
        + compressed.get()
        + " B";
  }

  @Override
  public void close() {
    // Nothing to close.
  }
}
