package io.docstore.bench.runner;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One engine JVM's results, parsed from its stdout ({@link EngineMain}), plus what the runner
 * measured from outside: the directory's bytes on disk after the JVM exited.
 */
record ChildResult(
    String workload,
    String engine,
    List<Map<String, String>> phases,
    String settings,
    List<String> notes,
    long peakRssBytes,
    long diskBytes,
    String failure) {

  static ChildResult failed(String workload, String engine, String why) {
    return new ChildResult(workload, engine, List.of(), "", List.of(), 0, 0, why);
  }

  static ChildResult parse(String workload, String engine, List<String> stdout, long diskBytes) {
    List<Map<String, String>> phases = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    String settings = "";
    long peakRss = 0;
    for (String line : stdout) {
      if (line.startsWith("RESULT ")) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (String kv : line.substring(7).trim().split(" ")) {
          int eq = kv.indexOf('=');
          fields.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        phases.add(fields);
      } else if (line.startsWith("SETTINGS ")) {
        settings = line.substring(9);
      } else if (line.startsWith("NOTE ")) {
        notes.add(line.substring(5));
      } else if (line.startsWith("PEAK_RSS ")) {
        peakRss = Long.parseLong(line.substring(9).trim());
      }
    }
    String failure = phases.isEmpty() ? "no results in the engine JVM's output" : null;
    return new ChildResult(workload, engine, phases, settings, notes, peakRss, diskBytes, failure);
  }

  Map<String, String> phase(String name) {
    return phases.stream().filter(p -> name.equals(p.get("phase"))).findFirst().orElse(null);
  }

  /** Bytes written to storage over the whole run (all phases). */
  long writeBytes() {
    return phases.stream().mapToLong(p -> Long.parseLong(p.getOrDefault("write_bytes", "0"))).sum();
  }
}
