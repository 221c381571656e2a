package io.docstore.bench.runner;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Markdown tables of one workload's results: one table per phase, one row per engine, and the ratio
 * of docstore's ops/s to each engine's (above 1: docstore is faster). Bytes on disk, bytes written
 * and peak RSS are per run (all phases of that engine's JVM), repeated on each phase's row. A
 * workload of read/write mixes (mixed) gets one more table first, its mixes side by side, and churn
 * one of its stream and space figures.
 */
final class ResultTable {

  static final String DOCSTORE = "docstore";

  private ResultTable() {}

  static String render(String workload, List<ChildResult> results) {
    StringBuilder sb = new StringBuilder();
    sb.append("### ").append(workload).append('\n');
    Set<String> phases = new LinkedHashSet<>();
    for (ChildResult r : results) {
      r.phases().forEach(p -> phases.add(p.get("phase")));
    }
    ChildResult docstore =
        results.stream()
            .filter(r -> r.engine().equals(DOCSTORE) && r.failure() == null)
            .findFirst()
            .orElse(null);
    mixes(sb, phases, results, docstore);
    churn(sb, results);
    for (String phase : phases) {
      sb.append('\n').append("phase `").append(phase).append("`\n\n");
      boolean input =
          results.stream()
              .map(r -> r.phase(phase))
              .anyMatch(p -> p != null && p.containsKey("input_mb_per_s"));
      sb.append("| engine | ops/s |")
          .append(input ? " input MB/s |" : "")
          .append(
              " p50 us | p99 us | p99.9 us | misses | wrong | KiB read/op | dev reads/op"
                  + " | disk MB | written MB | peak RSS MB | docstore/engine |\n");
      sb.append("|---|---:|")
          .append(input ? "---:|" : "")
          .append("---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
      for (ChildResult r : results) {
        Map<String, String> p = r.phase(phase);
        if (p == null) {
          continue;
        }
        long ops = Long.parseLong(p.get("ops"));
        List<String> cells = new ArrayList<>();
        cells.add(r.engine());
        cells.add(p.get("ops_per_s"));
        if (input) {
          cells.add(p.getOrDefault("input_mb_per_s", "-"));
        }
        cells.add(p.get("p50_us"));
        cells.add(p.get("p99_us"));
        cells.add(p.get("p999_us"));
        cells.add(p.get("misses"));
        cells.add(p.get("wrong"));
        cells.add(perOp(Long.parseLong(p.get("read_bytes")) / 1024.0, ops));
        cells.add(perOp(Long.parseLong(p.get("device_reads")), ops));
        cells.add(mb(r.diskBytes()));
        cells.add(mb(r.writeBytes()));
        cells.add(mb(r.peakRssBytes()));
        cells.add(ratio(docstore, r, phase));
        sb.append("| ").append(String.join(" | ", cells)).append(" |\n");
      }
    }
    for (ChildResult r : results) {
      if (r.failure() != null) {
        sb.append("\n- ").append(r.engine()).append(": FAILED: ").append(r.failure());
      }
    }
    sb.append('\n');
    for (ChildResult r : results) {
      for (String note : r.notes()) {
        sb.append("- ").append(r.engine()).append(": ").append(note).append('\n');
      }
    }
    return sb.toString();
  }

  /**
   * For a workload whose phase P comes with phases P-read and P-write (the mixed workload), one
   * table of every such P first: throughput (over engine time, and over wall time), read and write
   * latencies side by side, the share of writes, and the two ratios to docstore.
   */
  private static void mixes(
      StringBuilder sb, Set<String> phases, List<ChildResult> results, ChildResult docstore) {
    List<String> mixes =
        phases.stream()
            .filter(p -> phases.contains(p + "-read") && phases.contains(p + "-write"))
            .toList();
    if (mixes.isEmpty()) {
      return;
    }
    sb.append(
        "\nper mix (`ops/s` over time in engine calls, `wall ops/s` over the run's wall time; latencies in us;"
            + " last column above 1: docstore's write p99 is higher)\n\n");
    sb.append(
        "| mix | engine | ops/s | wall ops/s | writes % | read p50 | read p99 | read p99.9 | write p50 | write p99"
            + " | write p99.9 | docstore/engine | write p99 docstore/engine |\n");
    sb.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (String mix : mixes) {
      for (ChildResult r : results) {
        Map<String, String> all = r.phase(mix);
        Map<String, String> reads = r.phase(mix + "-read");
        Map<String, String> writes = r.phase(mix + "-write");
        if (all == null || reads == null || writes == null) {
          continue;
        }
        long ops = Long.parseLong(all.get("ops"));
        double seconds = Double.parseDouble(all.get("seconds"));
        List<String> cells = new ArrayList<>();
        cells.add(mix);
        cells.add(r.engine());
        cells.add(all.get("ops_per_s"));
        cells.add(seconds == 0 ? "-" : Long.toString(Math.round(ops / seconds)));
        cells.add(
            ops == 0
                ? "-"
                : String.format(
                    Locale.ROOT, "%.1f", 100.0 * Long.parseLong(writes.get("ops")) / ops));
        cells.add(reads.get("p50_us"));
        cells.add(reads.get("p99_us"));
        cells.add(reads.get("p999_us"));
        cells.add(writes.get("p50_us"));
        cells.add(writes.get("p99_us"));
        cells.add(writes.get("p999_us"));
        cells.add(ratio(docstore, r, mix));
        Map<String, String> d =
            docstore == null || r == docstore ? null : docstore.phase(mix + "-write");
        double peer = Double.parseDouble(writes.get("p99_us"));
        cells.add(
            d == null || peer == 0
                ? "-"
                : String.format(Locale.ROOT, "%.2f", Double.parseDouble(d.get("p99_us")) / peer));
        sb.append("| ").append(String.join(" | ", cells)).append(" |\n");
      }
    }
  }

  /**
   * For the churn workload (its writer's phase {@code churn} carries the space figures), one table
   * first: the update stream each engine kept up with, its reads' latencies, and its space.
   */
  private static void churn(StringBuilder sb, List<ChildResult> results) {
    if (results.stream().noneMatch(r -> r.phase("churn") != null)) {
      return;
    }
    sb.append(
        "\nchurn (updates/s offered and achieved; reads in us; space amplification = bytes on disk /"
            + " uncompressed bytes of the live documents, mean of the last third; own = the engine's"
            + " own estimate; GC write amp = stored bytes its space reclamation relocated / stored"
            + " bytes of the workload's writes)\n\n");
    sb.append(
        "| engine | offered | achieved | max lag s | expiry deletes | read p50 | read p99"
            + " | read p99.9 | misses | wrong | live MB | disk MB at end | space amp | own space amp"
            + " | GC relocated MB | GC write amp |\n");
    sb.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (ChildResult r : results) {
      Map<String, String> w = r.phase("churn");
      Map<String, String> reads = r.phase("churn-read");
      if (w == null || reads == null) {
        continue;
      }
      List<String> cells = new ArrayList<>();
      cells.add(r.engine());
      cells.add(w.get("offered_updates_per_s"));
      cells.add(w.get("updates_per_s"));
      cells.add(w.get("max_lag_s"));
      cells.add(w.get("expiry_deletes"));
      cells.add(reads.get("p50_us"));
      cells.add(reads.get("p99_us"));
      cells.add(reads.get("p999_us"));
      cells.add(reads.get("misses"));
      cells.add(reads.get("wrong"));
      cells.add(mb(Long.parseLong(w.get("live_bytes"))));
      cells.add(mb(Long.parseLong(w.get("disk_bytes_end"))));
      cells.add(w.get("space_amp"));
      cells.add(w.getOrDefault("engine_space_amp", "-"));
      String relocated = w.get("gc_relocated_bytes");
      cells.add(relocated == null ? "-" : mb(Long.parseLong(relocated)));
      cells.add(w.getOrDefault("gc_write_amp", "-"));
      sb.append("| ").append(String.join(" | ", cells)).append(" |\n");
    }
  }

  private static String ratio(ChildResult docstore, ChildResult r, String phase) {
    if (docstore == null || r == docstore) {
      return "-";
    }
    Map<String, String> d = docstore.phase(phase);
    Map<String, String> p = r.phase(phase);
    double peer = Double.parseDouble(p.get("ops_per_s"));
    if (d == null || peer == 0) {
      return "-";
    }
    return String.format(Locale.ROOT, "%.2f", Double.parseDouble(d.get("ops_per_s")) / peer);
  }

  private static String perOp(double total, long ops) {
    return ops == 0 ? "-" : String.format(Locale.ROOT, "%.2f", total / ops);
  }

  private static String mb(long bytes) {
    return String.format(Locale.ROOT, "%.1f", bytes / 1e6);
  }
}
