package io.docstore.service.bulk;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Reads line-oriented input (NDJSON) as buffers of whole lines of about {@code chunkBytes} each, a
 * new buffer every time, so that each can be handed to another thread; the last may lack its
 * newline at the end of input. {@link BulkLoad}'s reader, and the bench's for its peer engines.
 *
 * <p>A line longer than {@code maxLineBytes} (and than a chunk) is not buffered whole: its start
 * comes alone as a buffer without a newline, which fails any validation of it, and the rest of it
 * up to its newline is skipped.
 *
 * <p>Not thread-safe: one thread at a time.
 */
public final class ChunkReader {

  /** {@code length} bytes of whole lines at the start of {@code buf}; possibly none. */
  public record Input(byte[] buf, int length) {}

  private final InputStream in;
  private final int chunkBytes;
  private final int maxLineBytes;
  private byte[] carry = new byte[0];
  private int carryLength;
  private boolean eof;

  public ChunkReader(InputStream in, int chunkBytes, int maxLineBytes) {
    if (chunkBytes < 1 || maxLineBytes < 1 || maxLineBytes > Integer.MAX_VALUE - 16) {
      throw new IllegalArgumentException(
          "chunkBytes " + chunkBytes + ", maxLineBytes " + maxLineBytes);
    }
    this.in = in;
    this.chunkBytes = chunkBytes;
    this.maxLineBytes = maxLineBytes;
  }

  /** The next buffer of whole lines, or null at the end. */
  public Input next() throws IOException {
    if (eof && carryLength == 0) {
      return null;
    }
    int size = Math.max(chunkBytes, carryLength * 2);
    byte[] buf = new byte[size];
    System.arraycopy(carry, 0, buf, 0, carryLength);
    int n = carryLength;
    while (true) {
      while (!eof && n < buf.length) {
        int r = in.read(buf, n, buf.length - n);
        if (r < 0) {
          eof = true;
        } else {
          n += r;
        }
      }
      int cut = n;
      if (!eof) {
        cut = lastNewline(buf, n) + 1;
        if (cut == 0) {
          if (n > maxLineBytes + 2) {
            // One line longer than any valid one: its start goes alone as a chunk (it fails
            // validation), the rest of it up to its newline is skipped.
            carryLength = skipRestOfLine(new byte[chunkBytes]);
            return new Input(buf, n);
          } else {
            buf = Arrays.copyOf(buf, buf.length * 2);
            continue;
          }
        }
      }
      carryLength = n - cut;
      ensureCarry(carryLength);
      System.arraycopy(buf, cut, carry, 0, carryLength);
      return new Input(buf, cut);
    }
  }

  /** Discards input up to and including the next newline; what follows goes to the carry. */
  private int skipRestOfLine(byte[] scratch) throws IOException {
    while (true) {
      int r = in.read(scratch, 0, scratch.length);
      if (r < 0) {
        eof = true;
        return 0;
      }
      for (int i = 0; i < r; i++) {
        if (scratch[i] == '\n') {
          int rest = r - i - 1;
          ensureCarry(rest);
          System.arraycopy(scratch, i + 1, carry, 0, rest);
          return rest;
        }
      }
    }
  }

  /** The carry holds the start of a line: grown as lines need, not to a chunk's size. */
  private void ensureCarry(int length) {
    if (carry.length < length) {
      carry = new byte[Math.max(length, 2 * carry.length)];
    }
  }

  private static int lastNewline(byte[] b, int n) {
    for (int i = n - 1; i >= 0; i--) {
      if (b[i] == '\n') {
        return i;
      }
    }
    return -1;
  }
}
