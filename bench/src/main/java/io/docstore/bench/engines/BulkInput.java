package io.docstore.bench.engines;

import io.docstore.bench.data.JobDocGenerator;
import io.docstore.service.bulk.ChunkReader;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;

/**
 * The bulk workload's input: an NDJSON file of job documents in the import format ({@code
 * {"id":N,"doc":{...}}} a line, the shared {@link JobDocGenerator}'s version 0 of each job), ids
 * 0..N-1 ascending (sorted, as RocksDB's bulk-loading docs recommend for {@code SstFileWriter}).
 * Also the peers' reader of it: whole-line chunks (the product's {@link ChunkReader}), and a line
 * splitter that trusts the format.
 */
public final class BulkInput {

  private static final byte[] PREFIX = "{\"id\":".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] DOC = ",\"doc\":".getBytes(StandardCharsets.US_ASCII);

  /**
   * Far above any generated line (a few KiB); a longer one would come cut and fail {@link #lines}.
   */
  private static final int MAX_LINE_BYTES = 16 << 20;

  /** A chunk of whole lines: {@code buf[0, length)}. */
  @FunctionalInterface
  public interface ChunkConsumer {
    void accept(byte[] buf, int length) throws IOException;
  }

  /** One line's id and document {@code buf[off, off+len)}. */
  @FunctionalInterface
  public interface LineConsumer {
    void accept(long id, byte[] buf, int off, int len) throws IOException;
  }

  private BulkInput() {}

  /** Writes the file for {@code n} jobs unless it exists (written to a temp file, then renamed). */
  public static void ensure(Path file, long n) throws IOException {
    if (Files.exists(file)) {
      return;
    }
    Files.createDirectories(file.toAbsolutePath().getParent());
    Path tmp =
        file.resolveSibling(file.getFileName() + "." + ProcessHandle.current().pid() + ".tmp");
    try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 20)) {
      for (long id = 0; id < n; id++) {
        out.write(PREFIX);
        out.write(Long.toString(id).getBytes(StandardCharsets.US_ASCII));
        out.write(DOC);
        out.write(JobDocGenerator.document(id, 0));
        out.write('}');
        out.write('\n');
      }
    }
    // Written back before any engine is timed: otherwise the first engine's load shares the disk
    // and the CPU with the kernel writing the input file back.
    try (java.nio.channels.FileChannel ch =
        java.nio.channels.FileChannel.open(tmp, java.nio.file.StandardOpenOption.WRITE)) {
      ch.force(true);
    }
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  /** The 8-byte big-endian key of an id, as {@code Keys.bytes}. */
  public static byte[] key(long id) {
    byte[] k = new byte[8];
    for (int i = 7; i >= 0; i--) {
      k[i] = (byte) id;
      id >>>= 8;
    }
    return k;
  }

  /**
   * Reads {@code file} as chunks of whole lines of about {@code chunkBytes}, a new buffer each,
   * with the product's bulk-load reader.
   */
  public static void chunks(Path file, int chunkBytes, ChunkConsumer consumer) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      ChunkReader reader = new ChunkReader(in, chunkBytes, MAX_LINE_BYTES);
      for (ChunkReader.Input chunk = reader.next(); chunk != null; chunk = reader.next()) {
        if (chunk.length() > 0) {
          consumer.accept(chunk.buf(), chunk.length());
        }
      }
    }
  }

  /** Splits a chunk into lines of the generator's exact format. */
  public static void lines(byte[] buf, int length, LineConsumer consumer) throws IOException {
    int p = 0;
    while (p < length) {
      int end = p;
      while (end < length && buf[end] != '\n') {
        end++;
      }
      if (end > p) {
        line(buf, p, end, consumer);
      }
      p = end + 1;
    }
  }

  private static void line(byte[] b, int from, int to, LineConsumer consumer) throws IOException {
    int p = from + PREFIX.length;
    if (!Arrays.equals(b, from, p, PREFIX, 0, PREFIX.length)) {
      throw new IOException("bulk input line does not start with {\"id\": at byte " + from);
    }
    long id = 0;
    while (p < to && b[p] >= '0' && b[p] <= '9') {
      id = id * 10 + (b[p++] - '0');
    }
    if (!Arrays.equals(b, p, p + DOC.length, DOC, 0, DOC.length) || b[to - 1] != '}') {
      throw new IOException("bulk input line of id " + id + " is not {\"id\":N,\"doc\":{...}}");
    }
    p += DOC.length;
    consumer.accept(id, b, p, to - 1 - p);
  }

  /** Every line of {@code file}, in order. */
  public static void forEachLine(Path file, LineConsumer consumer) throws IOException {
    chunks(file, 1 << 20, (buf, n) -> lines(buf, n, consumer));
  }
}
