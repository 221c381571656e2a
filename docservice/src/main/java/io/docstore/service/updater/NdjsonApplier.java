package io.docstore.service.updater;

import io.docstore.service.DocumentSink;
import io.docstore.service.Update;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * Streams an NDJSON update file into a {@link DocumentSink} in batches (one durability wait per
 * batch), used by the inbox and {@code docstore import}. Invalid lines are reported, never applied;
 * the rest of the file still is. Not thread-safe (one file at a time).
 */
public final class NdjsonApplier {

  /** Most error lines kept in a {@link Result}; the count is always exact. */
  public static final int MAX_REPORTED_ERRORS = 1000;

  /** What applying one input did. */
  public record Result(
      long lines, long applied, long failed, List<String> errors, long lastSequence) {}

  private final DocumentSink sink;
  private final UpdateParser parser;
  private final int batchLines;
  private final int maxLineBytes;

  /**
   * @param maxBodyBytes the document limit; a line may be somewhat longer (its {@code id} and
   *     wrapping), up to twice that plus 1 KiB, before it is rejected unread
   */
  public NdjsonApplier(DocumentSink sink, UpdateParser parser, int batchLines, int maxBodyBytes) {
    this.sink = sink;
    this.parser = parser;
    this.batchLines = batchLines;
    this.maxLineBytes = (int) Math.min(Integer.MAX_VALUE - 16, 2L * maxBodyBytes + 1024);
  }

  /**
   * Follows one {@link #apply(InputStream, Progress)} call: says which updates are in the store
   * already (a file resumed after a crash) and hears of each durable batch.
   */
  public interface Progress {

    /**
     * Whether {@code update}, read from the line that ends at byte {@code lineEnd} of the input, is
     * in the store already: then it counts as applied and is not sent again. Asked for every valid
     * line, in input order.
     */
    boolean alreadyApplied(Update update, long lineEnd) throws IOException;

    /**
     * After each batch: every update read from the input's first {@code consumed} bytes (a line
     * boundary) is durable; {@code lastSequence} is the highest sequence the batch got, 0 when it
     * sent nothing.
     */
    void batchDone(long consumed, long lastSequence) throws IOException;
  }

  /**
   * Applies every valid line of {@code in}.
   *
   * @param progress receives the number of input bytes consumed so far, after each batch
   * @throws IOException when the store fails: the batch in flight is not acknowledged, earlier ones
   *     are; re-applying the whole input is safe (the newest version wins)
   */
  public Result apply(InputStream in, LongConsumer progress) throws IOException {
    return apply(
        in,
        new Progress() {
          @Override
          public boolean alreadyApplied(Update update, long lineEnd) {
            return false;
          }

          @Override
          public void batchDone(long consumed, long lastSequence) {
            progress.accept(consumed);
          }
        });
  }

  /**
   * Applies the valid lines of {@code in} that {@code progress} does not report as applied already.
   *
   * @throws IOException when the store fails (the batch in flight is not acknowledged, earlier ones
   *     are) or {@code progress} does
   */
  public Result apply(InputStream in, Progress progress) throws IOException {
    Run run = new Run(progress);
    byte[] buf = new byte[64 * 1024];
    int n;
    while ((n = in.read(buf)) >= 0) {
      int start = 0;
      for (int j = 0; j < n; j++) {
        if (buf[j] == '\n') {
          run.append(buf, start, j - start + 1);
          run.endLine();
          start = j + 1;
        }
      }
      run.append(buf, start, n - start);
    }
    if (run.len > 0 || run.tooLong) {
      run.endLine();
    }
    return run.finish();
  }

  /** The state of one {@link #apply} call. */
  private final class Run {
    final Progress progress;
    final List<Update> batch = new ArrayList<>();
    final List<String> errors = new ArrayList<>();
    byte[] line = new byte[8192];
    int len;
    boolean tooLong;
    long lines;
    long applied;
    long failed;
    long lastSeq;
    long consumed;

    Run(Progress progress) {
      this.progress = progress;
    }

    void append(byte[] b, int off, int n) {
      consumed += n;
      if (tooLong) {
        return;
      }
      if (len + n > maxLineBytes + 2) {
        tooLong = true;
        return;
      }
      if (len + n > line.length) {
        line = Arrays.copyOf(line, Math.max(len + n, line.length * 2));
      }
      System.arraycopy(b, off, line, len, n);
      len += n;
    }

    void endLine() throws IOException {
      lines++;
      int l = len;
      if (l > 0 && line[l - 1] == '\n') {
        l--;
      }
      if (l > 0 && line[l - 1] == '\r') {
        l--;
      }
      if (tooLong) {
        failed++;
        addError(errors, lines, "line longer than " + maxLineBytes + " bytes");
      } else if (!blank(line, l)) {
        try {
          Update u = parser.parseLine(line, 0, l);
          if (progress.alreadyApplied(u, consumed)) {
            applied++;
          } else {
            batch.add(u);
          }
        } catch (InvalidUpdateException e) {
          failed++;
          addError(errors, lines, e.getMessage());
        }
      }
      len = 0;
      tooLong = false;
      if (batch.size() >= batchLines) {
        flushBatch();
      }
    }

    void flushBatch() throws IOException {
      int size = batch.size();
      long batchSeq = flush(batch);
      lastSeq = Math.max(lastSeq, batchSeq);
      applied += size;
      progress.batchDone(consumed, batchSeq);
    }

    Result finish() throws IOException {
      flushBatch();
      return new Result(lines, applied, failed, List.copyOf(errors), lastSeq);
    }
  }

  private long flush(List<Update> batch) throws IOException {
    if (batch.isEmpty()) {
      return 0;
    }
    var ws = sink.apply(List.copyOf(batch));
    batch.clear();
    return ws.get(ws.size() - 1).sequence();
  }

  private static void addError(List<String> errors, long line, String reason) {
    if (errors.size() < MAX_REPORTED_ERRORS) {
      errors.add("line " + line + ": " + reason);
    }
  }

  private static boolean blank(byte[] b, int len) {
    for (int i = 0; i < len; i++) {
      if (b[i] != ' ' && b[i] != '\t') {
        return false;
      }
    }
    return true;
  }
}
