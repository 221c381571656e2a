package io.docstore.io;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Stored bytes failed a check: a checksum mismatch, an impossible length, a bad magic number.
 * Distinct from plain I/O errors (the device failed) and from bugs. Carries the file and byte
 * offset where the damage was found and, for checksum failures, the expected and actual values.
 */
public class CorruptionException extends IOException {

  private static final long serialVersionUID = 1L;

  private final Path file;
  private final long offset;

  public CorruptionException(Path file, long offset, String what) {
    super(file + " at offset " + offset + ": " + what);
    this.file = file;
    this.offset = offset;
  }

  /** A checksum mismatch; the message names both values in hex. */
  public static CorruptionException checksum(
      Path file, long offset, String what, int expected, int actual) {
    return new CorruptionException(
        file,
        offset,
        String.format("%s checksum mismatch (expected %08x, actual %08x)", what, expected, actual));
  }

  public Path file() {
    return file;
  }

  public long offset() {
    return offset;
  }
}
