package io.docstore.bench.runner;

import io.docstore.bench.engines.Engines;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * {@code scripts/bench}: every selected workload on every selected engine, one engine JVM after
 * another on a fresh directory each, then a table per workload on stdout and {@code tables.md},
 * {@code results.json} and {@code results.csv} in the output directory. Exit status 1 when an
 * engine failed or any read missed or returned a wrong value.
 */
public final class BenchMain {

  private BenchMain() {}

  public static void main(String[] args) throws Exception {
    Path benchDir = Path.of(System.getProperty("bench.dir", "bench")).toAbsolutePath();
    BenchOptions options;
    try {
      options = BenchOptions.parse(args, benchDir);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    if (options.help) {
      System.out.print(BenchOptions.usage());
      return;
    }
    System.exit(run(options, System.out, System.err) ? 0 : 1);
  }

  /** Runs everything {@code o} selects; true when every engine ran and every read was right. */
  static boolean run(BenchOptions o, PrintStream out, PrintStream log)
      throws IOException, InterruptedException {
    ChildJvm jvm = new ChildJvm(o.heap);
    Files.createDirectories(o.out);
    Map<String, Object> context = context(o, jvm);
    List<ChildResult> all = new ArrayList<>();
    StringBuilder tables = new StringBuilder();
    boolean ok = true;
    for (String workload : o.workloads) {
      List<ChildResult> results = new ArrayList<>();
      StringBuilder header = new StringBuilder();
      boolean cold = workload.equals("indeed-kv-512m");
      if (cold) {
        log.printf("bench: probing the disk (random 4 KiB reads, O_DIRECT, QD1)...%n");
        double rate = DiskProbe.randomReadsPerSecond(o.data, o.probeBytes, o.probeSeconds);
        context.put("disk_random_4k_reads_per_s_qd1", Math.round(rate));
        header.append(
            String.format(
                Locale.ROOT,
                "- disk: %,.0f random 4 KiB reads/s at QD1 (O_DIRECT, %d MB file),"
                    + " measured in this run%n",
                rate,
                o.probeBytes >> 20));
      }
      if (workload.equals("bulk")) {
        // Here, not in the first engine's JVM: no engine is timed in a JVM that just wrote
        // gigabytes.
        log.printf("bench: writing the bulk input (%,d documents)...%n", o.bulkDocs);
        io.docstore.bench.engines.BulkInput.ensure(bulkInput(o), o.bulkDocs);
      }
      for (String engine : enginesFor(workload, o.engines, header)) {
        ChildResult r = runOne(o, jvm, workload, engine, cold, header, log);
        results.add(r);
        all.add(r);
        ok &=
            r.failure() == null
                && r.phases().stream()
                    .allMatch(p -> p.get("misses").equals("0") && p.get("wrong").equals("0"));
      }
      if (workload.equals("bulk")) {
        Files.deleteIfExists(bulkInput(o));
      }
      String table = ResultTable.render(workload, results) + header;
      out.println(table);
      tables.append(table).append('\n');
    }
    Files.writeString(o.out.resolve("tables.md"), tables, StandardCharsets.UTF_8);
    ResultFiles.write(o.out, context, all);
    int charts = Charts.render(o.out).size();
    log.printf(
        "bench: results in %s (tables.md, results.json, results.csv, %d charts)%n", o.out, charts);
    Path disk = o.out.resolve(Charts.CHURN_DISK_CHART);
    if (o.churn.chartOut != null && Files.exists(disk)) {
      Files.createDirectories(o.churn.chartOut.toAbsolutePath().getParent());
      Files.copy(disk, o.churn.chartOut, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      log.printf("bench: %s copied to %s%n", disk.getFileName(), o.churn.chartOut);
    }
    return ok;
  }

  /**
   * The engines of one workload: the speed references only for bulk (which always gets them), and
   * for bulk not rocksdb-blob, whose bulk path would be rocksdb's (ingested SST files hold no
   * blobs); for churn its own engines (docstore-nogc only there), in their order.
   */
  static List<String> enginesFor(String workload, List<String> engines, StringBuilder header) {
    if (workload.equals("churn")) {
      List<String> skipped = engines.stream().filter(e -> !Engines.CHURN.contains(e)).toList();
      if (!skipped.isEmpty()) {
        header.append("- " + String.join(", ", skipped) + ": not run: not among churn's engines\n");
      }
      return Engines.CHURN.stream().filter(engines::contains).toList();
    }
    List<String> out = new ArrayList<>();
    for (String e : engines) {
      if (Engines.REFERENCES.contains(e) || e.equals(Engines.DOCSTORE_NOGC)) {
        continue;
      }
      if (workload.equals("bulk") && e.equals("rocksdb-blob")) {
        header.append(
            "- rocksdb-blob: not run: its bulk path is rocksdb's (SstFileWriter files hold no blob files)\n");
        continue;
      }
      out.add(e);
    }
    if (workload.equals("bulk")) {
      out.addAll(Engines.REFERENCES);
    }
    return out;
  }

  /**
   * The bulk workload's input file, written by the runner before the engines run, removed after the
   * workload.
   */
  static Path bulkInput(BenchOptions o) {
    return o.data.resolve("bulk-input-" + o.bulkDocs + ".ndjson");
  }

  private static ChildResult runOne(
      BenchOptions o,
      ChildJvm jvm,
      String workload,
      String engine,
      boolean cold,
      StringBuilder header,
      PrintStream log)
      throws IOException, InterruptedException {
    Path dir = o.data.resolve(workload + "-" + engine);
    DiskUsage.deleteRecursively(dir);
    Files.createDirectories(dir);
    Map<String, Object> args = new LinkedHashMap<>();
    args.put("engine", engine);
    args.put("workload", workload);
    args.put("dir", dir);
    args.put("keys", o.keysFor(workload));
    args.put("reads", o.readsFor(workload));
    args.put("batch", o.batch);
    args.put("seed", o.seed);
    args.put("memory", o.memoryBytes);
    args.put("writeBuffer", o.writeBufferFor(workload));
    args.put("block", o.blockBytes);
    args.put("coldSeconds", o.coldSeconds);
    args.put("rwSeconds", o.rwSeconds);
    args.put("writeRate", o.writeRate);
    if (workload.equals("bulk")) {
      args.put("bulkInput", bulkInput(o));
      args.put("threads", o.bulkThreads);
    }
    if (workload.equals("mixed")) {
      args.put("mixedThreads", o.mixedThreads);
      args.put("mixedSeconds", o.mixedSeconds);
      args.put(
          "mixedWrites",
          o.mixedWritePercents.stream()
              .map(String::valueOf)
              .collect(java.util.stream.Collectors.joining(",")));
    }
    if (workload.equals("churn")) {
      args.put("churnUpdates", o.churn.updates);
      args.put("churnRate", o.churn.rate);
    }
    Optional<MemoryCgroup> group = Optional.empty();
    if (cold) {
      StringBuilder why = new StringBuilder();
      group =
          MemoryCgroup.create(
              "docstore-bench-" + ProcessHandle.current().pid() + "-" + engine,
              o.coldLimitBytes,
              why);
      if (group.isPresent()) {
        args.put("cgroup", group.get().dir());
      } else if (header.indexOf("cgroup") < 0) {
        header
            .append("- NO MEMORY LIMIT: ")
            .append(why)
            .append("; the cold reads ran with the page cache" + " evicted but unlimited\n");
      }
    }
    log.printf("bench: %s on %s...%n", workload, engine);
    long start = System.nanoTime();
    ChildResult r;
    try {
      r =
          jvm.run(
              workload,
              engine,
              args,
              dir,
              o.out.resolve(workload + "-" + engine + ".log"),
              o.timeoutFor(workload));
    } finally {
      if (group.isPresent()) {
        group.get().close();
      }
      DiskUsage.deleteRecursively(dir);
    }
    log.printf(
        "bench: %s on %s done in %.1f s%s%n",
        workload,
        engine,
        (System.nanoTime() - start) / 1e9,
        r.failure() == null ? "" : ": " + r.failure());
    return r;
  }

  private static Map<String, Object> context(BenchOptions o, ChildJvm jvm) throws IOException {
    Map<String, Object> c = new LinkedHashMap<>();
    c.put("date", Instant.now().toString());
    c.put("profile", o.profile);
    c.put("cores", Runtime.getRuntime().availableProcessors());
    c.put("memory_total", memTotal());
    c.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
    c.put(
        "jvm",
        System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
    c.put("jvm_options", String.join(" ", jvm.jvmOptions()));
    c.put("kv_keys", o.kvKeys);
    c.put("jobs", o.jobs);
    c.put("job_reads", o.jobReads);
    c.put("rw_keys", o.rwKeys);
    c.put("rw_seconds", o.rwSeconds);
    c.put("write_rate", o.writeRate);
    c.put("cold_seconds", o.coldSeconds);
    c.put("cold_limit_bytes", o.coldLimitBytes);
    c.put("batch", o.batch);
    c.put("memory_budget_bytes", o.memoryBytes);
    c.put("write_buffer_bytes", o.writeBufferBytes);
    c.put("block_bytes", o.blockBytes);
    c.put("seed", o.seed);
    c.put("bulk_docs", o.bulkDocs);
    c.put("bulk_threads", o.bulkThreads);
    c.put("mixed_docs", o.mixedDocs);
    c.put("mixed_seconds", o.mixedSeconds);
    c.put("mixed_threads", o.mixedThreads);
    c.put("mixed_write_percents", o.mixedWritePercents.toString());
    c.put("churn_keys", o.churn.keys);
    c.put("churn_updates", o.churn.updates);
    c.put("churn_rate", o.churn.rate);
    c.put("churn_write_buffer_bytes", o.writeBufferFor("churn"));
    return c;
  }

  private static String memTotal() {
    try {
      return Files.readAllLines(Path.of("/proc/meminfo")).stream()
          .filter(l -> l.startsWith("MemTotal:"))
          .map(l -> l.substring(9).trim())
          .findFirst()
          .orElse("unknown");
    } catch (IOException e) {
      return "unknown";
    }
  }
}
