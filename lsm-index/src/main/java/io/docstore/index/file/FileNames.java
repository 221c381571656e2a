package io.docstore.index.file;

import java.nio.file.Path;
import java.util.Locale;

/**
 * The one place that formats and parses lsm-index file names. Names it does not know (temp files,
 * rsync partials, stray files) parse to {@code null} and are never mistaken for data.
 *
 * <ul>
 *   <li>{@code NNNNNNNNNN.idx}: an on-disk index table (see docs/formats/index-table.md)
 *   <li>{@code NNNNNNNNNN.bloom}: the bloom filter of the table with the same number
 *   <li>{@code NNNNNNNNNN.wal}: a write-ahead log
 *   <li>{@code MANIFEST}: the set of live tables
 * </ul>
 *
 * Tables and WALs share one increasing number sequence, so numbers also order files by age.
 */
public final class FileNames {

  public static final String MANIFEST = "MANIFEST";

  /** File kinds with a number. */
  public enum Kind {
    TABLE(".idx"),
    BLOOM(".bloom"),
    WAL(".wal");

    final String suffix;

    Kind(String suffix) {
      this.suffix = suffix;
    }
  }

  /** A parsed numbered file name. */
  public record Parsed(Kind kind, long number) {}

  private FileNames() {}

  public static Path path(Path dir, Kind kind, long number) {
    return dir.resolve(String.format(Locale.ROOT, "%010d%s", number, kind.suffix));
  }

  /** Parses a numbered file name, or returns null for any other name (MANIFEST included). */
  public static Parsed parse(Path file) {
    String n = file.getFileName().toString();
    for (Kind k : Kind.values()) {
      if (n.endsWith(k.suffix)) {
        String digits = n.substring(0, n.length() - k.suffix.length());
        if (digits.length() != 10 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
          return null;
        }
        return new Parsed(k, Long.parseLong(digits));
      }
    }
    return null;
  }
}
