package io.docstore.bench.runner;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The engine JVM's arguments, {@code key=value} each; the runner builds them, the child parses
 * them.
 */
final class ChildArgs {

  private final Map<String, String> values;

  private ChildArgs(Map<String, String> values) {
    this.values = values;
  }

  static ChildArgs parse(String[] args) {
    Map<String, String> m = new LinkedHashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("expected key=value, got " + arg);
      }
      m.put(arg.substring(0, eq), arg.substring(eq + 1));
    }
    return new ChildArgs(m);
  }

  static List<String> format(Map<String, Object> args) {
    return args.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList();
  }

  String get(String key) {
    String v = values.get(key);
    if (v == null) {
      throw new IllegalArgumentException("missing argument " + key);
    }
    return v;
  }

  String getOrNull(String key) {
    return values.get(key);
  }

  long getLong(String key) {
    return Long.parseLong(get(key));
  }
}
