package io.docstore.queue.format;

import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one place segment file names are made and parsed: {@code seg-NNNNNNNNNN.active} for the
 * segment being appended to, {@code seg-NNNNNNNNNN.sealed} once sealed (10-digit zero-padded
 * segment number, so names sort by number). Any other name, including rsync temp files ({@code
 * .seg-0000000001.sealed.Ab12Cd}), {@code *.tmp} files and editor backups ({@code
 * seg-0000000001.sealed~}), is not a segment and is ignored.
 */
public record SegmentFileName(long segment, boolean sealed) {

  private static final Pattern NAME = Pattern.compile("seg-(\\d{10})\\.(active|sealed)");

  public SegmentFileName {
    if (segment < 1 || segment > Address.MAX_SEGMENT) {
      throw new IllegalArgumentException(
          "segment number out of range 1.." + Address.MAX_SEGMENT + ": " + segment);
    }
  }

  /** Parses a file name (the last path element); empty for anything that is not a segment. */
  public static Optional<SegmentFileName> parse(Path file) {
    Path name = file.getFileName();
    if (name == null) {
      return Optional.empty();
    }
    Matcher m = NAME.matcher(name.toString());
    if (!m.matches()) {
      return Optional.empty();
    }
    long n = Long.parseLong(m.group(1));
    if (n < 1 || n > Address.MAX_SEGMENT) {
      return Optional.empty();
    }
    return Optional.of(new SegmentFileName(n, m.group(2).equals("sealed")));
  }

  public String fileName() {
    return String.format("seg-%010d.%s", segment, sealed ? "sealed" : "active");
  }

  public Path in(Path dir) {
    return dir.resolve(fileName());
  }

  public SegmentFileName asSealed() {
    return new SegmentFileName(segment, true);
  }
}
