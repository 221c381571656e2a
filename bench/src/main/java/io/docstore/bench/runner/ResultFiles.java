package io.docstore.bench.runner;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The machine-readable results next to the tables: {@code results.json} (the run's context and
 * every engine's phases; a phase's series, such as its per-second p99s, {@code p99_us_per_s}, or
 * churn's samples, as arrays of numbers) and {@code results.csv} (one row per workload, engine and
 * phase).
 */
final class ResultFiles {

  static final List<String> PHASE_COLUMNS =
      List.of(
          "phase",
          "ops",
          "seconds",
          "engine_seconds",
          "ops_per_s",
          "p50_us",
          "p99_us",
          "p999_us",
          "max_us",
          "misses",
          "wrong",
          "read_bytes",
          "write_bytes",
          "read_calls",
          "device_reads",
          "input_mb_per_s");

  private ResultFiles() {}

  static void write(Path outDir, Map<String, Object> context, List<ChildResult> results)
      throws IOException {
    Files.createDirectories(outDir);
    Files.writeString(
        outDir.resolve("results.json"), json(context, results), StandardCharsets.UTF_8);
    Files.writeString(outDir.resolve("results.csv"), csv(results), StandardCharsets.UTF_8);
  }

  static String json(Map<String, Object> context, List<ChildResult> results) {
    StringBuilder sb = new StringBuilder("{\n  \"context\": {");
    String sep = "";
    for (Map.Entry<String, Object> e : context.entrySet()) {
      sb.append(sep)
          .append("\n    ")
          .append(str(e.getKey()))
          .append(": ")
          .append(value(e.getValue()));
      sep = ",";
    }
    sb.append("\n  },\n  \"runs\": [");
    sep = "";
    for (ChildResult r : results) {
      sb.append(sep)
          .append("\n    {\"workload\": ")
          .append(str(r.workload()))
          .append(", \"engine\": ")
          .append(str(r.engine()))
          .append(", \"failure\": ")
          .append(r.failure() == null ? "null" : str(r.failure()))
          .append(", \"disk_bytes\": ")
          .append(r.diskBytes())
          .append(", \"write_bytes\": ")
          .append(r.writeBytes())
          .append(", \"peak_rss_bytes\": ")
          .append(r.peakRssBytes())
          .append(", \"settings\": ")
          .append(str(r.settings()))
          .append(", \"notes\": [");
      String nsep = "";
      for (String n : r.notes()) {
        sb.append(nsep).append(str(n));
        nsep = ", ";
      }
      sb.append("], \"phases\": [");
      String psep = "";
      for (Map<String, String> p : r.phases()) {
        sb.append(psep).append("\n      {");
        String fsep = "";
        for (Map.Entry<String, String> f : p.entrySet()) {
          sb.append(fsep)
              .append(str(f.getKey()))
              .append(": ")
              .append(
                  Charts.SERIES_FIELDS.contains(f.getKey())
                      ? "[" + f.getValue() + "]"
                      : value(f.getValue()));
          fsep = ", ";
        }
        sb.append('}');
        psep = ",";
      }
      sb.append("]}");
      sep = ",";
    }
    sb.append("\n  ]\n}\n");
    return sb.toString();
  }

  static String csv(List<ChildResult> results) {
    StringBuilder sb = new StringBuilder("workload,engine,disk_bytes,peak_rss_bytes,");
    sb.append(String.join(",", PHASE_COLUMNS)).append('\n');
    for (ChildResult r : results) {
      for (Map<String, String> p : r.phases()) {
        sb.append(r.workload())
            .append(',')
            .append(r.engine())
            .append(',')
            .append(r.diskBytes())
            .append(',')
            .append(r.peakRssBytes());
        for (String c : PHASE_COLUMNS) {
          sb.append(',').append(p.getOrDefault(c, ""));
        }
        sb.append('\n');
      }
    }
    return sb.toString();
  }

  private static String value(Object v) {
    if (v instanceof Number) {
      return v.toString();
    }
    String s = String.valueOf(v);
    return s.matches("-?\\d+(\\.\\d+)?") ? s : str(s);
  }

  static String str(String s) {
    StringBuilder sb = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\t' -> sb.append("\\t");
        default -> {
          if (c < 0x20) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    return sb.append('"').toString();
  }
}
