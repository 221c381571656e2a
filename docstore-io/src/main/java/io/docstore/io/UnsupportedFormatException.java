package io.docstore.io;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A file's header names a format version this build cannot read: too old (written by a release
 * whose format support was dropped) or too new (written by a later release). Not corruption: the
 * file is intact, the reader is wrong for it.
 */
public class UnsupportedFormatException extends IOException {

  private static final long serialVersionUID = 1L;

  /** Whether the file is older or newer than what this build reads. */
  public enum Kind {
    TOO_OLD,
    TOO_NEW
  }

  private final Kind kind;

  public UnsupportedFormatException(
      Path file, String format, int found, int minSupported, int maxSupported) {
    super(
        String.format(
            "%s: %s format version %d is %s (this build reads %d..%d)",
            file,
            format,
            found,
            found < minSupported ? "too old" : "too new",
            minSupported,
            maxSupported));
    this.kind = found < minSupported ? Kind.TOO_OLD : Kind.TOO_NEW;
  }

  public Kind kind() {
    return kind;
  }
}
