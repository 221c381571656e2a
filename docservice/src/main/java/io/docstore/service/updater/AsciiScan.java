package io.docstore.service.updater;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Byte scans of update input, eight bytes at a time (SWAR: one {@code long} compared against all
 * eight bytes at once), for the two loops every input byte goes through: finding the end of a line
 * and skipping the plain characters of a JSON string.
 */
public final class AsciiScan {

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long ONES = 0x0101010101010101L;
  private static final long HIGHS = 0x8080808080808080L;
  private static final long QUOTES = ONES * '"';
  private static final long BACKSLASHES = ONES * '\\';
  private static final long NEWLINES = ONES * '\n';
  private static final long SPACES = ONES * 0x20;

  private AsciiScan() {}

  /** Whether any byte of {@code v} is zero (exact for the word as a whole). */
  private static boolean hasZeroByte(long v) {
    return ((v - ONES) & ~v & HIGHS) != 0;
  }

  /**
   * Skips plain characters of a JSON string, eight bytes at a time: returns an index {@code p >=
   * from} such that every byte in {@code [from, p)} is plain (not a quote, a backslash, a control
   * character below 0x20 nor a byte of 0x80 and above). It stops at the start of the eight bytes
   * holding the first byte that is not plain, or where fewer than eight bytes remain before {@code
   * to}; the caller examines the bytes from {@code p} on itself.
   */
  public static int skipPlainText(byte[] b, int from, int to) {
    int p = from;
    while (p <= to - Long.BYTES) {
      long v = (long) LONGS.get(b, p);
      // Bytes of 0x80 and above set their own high bit; below 0x20, subtracting 0x20 borrows into
      // it.
      long special = (v | ((v - SPACES) & ~v)) & HIGHS;
      if (special != 0 || hasZeroByte(v ^ QUOTES) || hasZeroByte(v ^ BACKSLASHES)) {
        return p;
      }
      p += Long.BYTES;
    }
    return p;
  }

  /** The index of the first {@code '\n'} in {@code [from, to)}, or {@code to} if there is none. */
  public static int indexOfNewline(byte[] b, int from, int to) {
    int p = from;
    while (p <= to - Long.BYTES) {
      if (hasZeroByte((long) LONGS.get(b, p) ^ NEWLINES)) {
        break;
      }
      p += Long.BYTES;
    }
    while (p < to && b[p] != '\n') {
      p++;
    }
    return p;
  }
}
