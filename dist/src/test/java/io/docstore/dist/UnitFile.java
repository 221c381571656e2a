package io.docstore.dist;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The {@code Key=value} settings of a systemd unit file, as written (specifiers not expanded). */
final class UnitFile {

  private final List<String> lines;

  private UnitFile(List<String> lines) {
    this.lines = lines;
  }

  static UnitFile read(Path file) throws IOException {
    return new UnitFile(Files.readAllLines(file));
  }

  /** Every value given to {@code key}, in order. */
  List<String> all(String key) {
    List<String> values = new ArrayList<>();
    for (String line : lines) {
      String t = line.strip();
      if (t.startsWith(key + "=")) {
        values.add(t.substring(key.length() + 1));
      }
    }
    return values;
  }

  /** The one value of {@code key}; fails when it is missing or given more than once. */
  String one(String key) {
    List<String> values = all(key);
    if (values.size() != 1) {
      throw new AssertionError(key + "= given " + values.size() + " times: " + values);
    }
    return values.get(0);
  }

  /**
   * A time span in seconds ({@code 30s}, {@code 30}) or minutes ({@code 2min}), as systemd reads.
   */
  Duration seconds(String key) {
    String v = one(key);
    if (v.endsWith("min")) {
      return Duration.ofMinutes(Long.parseLong(v.substring(0, v.length() - 3)));
    }
    return Duration.ofSeconds(Long.parseLong(v.endsWith("s") ? v.substring(0, v.length() - 1) : v));
  }
}
