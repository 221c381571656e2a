package io.docstore.bench.runner;

import io.docstore.bench.engines.Engine;
import io.docstore.bench.engines.EngineSettings;
import io.docstore.bench.workloads.PhaseResult;
import io.docstore.bench.workloads.ProcSelf;
import io.docstore.bench.workloads.WorkloadContext;
import io.docstore.bench.workloads.WorkloadParams;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The engine JVM: runs one workload on one engine and prints its results as {@code RESULT key=value
 * ...} lines (one per phase), then {@code SETTINGS}, {@code NOTE} and {@code PEAK_RSS} lines, on
 * stdout; the runner parses them ({@link ChildResult}). Started only by {@link ChildJvm}.
 *
 * <p>Arguments: the {@link ChildArgs} list. With {@code cgroup=<dir>}, the cold workload moves this
 * JVM into that memory cgroup after evicting the data files' pages (the engine closed).
 */
public final class EngineMain {

  private EngineMain() {}

  public static void main(String[] args) throws IOException {
    ChildArgs a = ChildArgs.parse(args);
    Path dir = Path.of(a.get("dir"));
    Files.createDirectories(dir);
    EngineSettings settings =
        new EngineSettings(
            dir, a.getLong("memory"), a.getLong("writeBuffer"), (int) a.getLong("block"));
    WorkloadParams params =
        new WorkloadParams(
            a.getLong("keys"),
            a.getLong("reads"),
            (int) a.getLong("batch"),
            a.getLong("seed"),
            (int) a.getLong("coldSeconds"),
            (int) a.getLong("rwSeconds"),
            (int) a.getLong("writeRate"));
    String engineName = a.get("engine");
    String[] settingsLine = {""};
    List<String> notes = new ArrayList<>();
    WorkloadContext.Opener opener =
        () -> {
          Engine e = Workloads.open(a.get("workload"), engineName, settings, a);
          settingsLine[0] = e.settings();
          return e;
        };
    WorkloadContext.ColdStart coldStart =
        () -> {
          String note = coldStart(dir, a.getOrNull("cgroup"));
          notes.add(note);
          return note;
        };
    List<PhaseResult> results =
        Workloads.byName(a.get("workload"), a, notes::add)
            .run(new WorkloadContext(opener, params, coldStart));
    PrintStream out = System.out;
    for (PhaseResult r : results) {
      StringBuilder line = new StringBuilder("RESULT");
      for (Map.Entry<String, Object> f : r.fields().entrySet()) {
        line.append(' ').append(f.getKey()).append('=').append(f.getValue());
      }
      out.println(line);
    }
    out.println("SETTINGS " + settingsLine[0]);
    for (String note : notes) {
      out.println("NOTE " + note);
    }
    out.println("PEAK_RSS " + ProcSelf.peakRssBytes());
    out.flush();
  }

  /**
   * Writes back and evicts every data file's pages (coreutils {@code sync FILE} then {@code dd
   * iflag=nocache count=0}, i.e. posix_fadvise DONTNEED on the whole file), then joins the cgroup.
   */
  static String coldStart(Path dir, String cgroup) throws IOException {
    List<String> files;
    try (Stream<Path> s = Files.walk(dir)) {
      files = s.filter(Files::isRegularFile).map(Path::toString).toList();
    }
    for (String f : files) {
      run(List.of("sync", f));
      run(List.of("dd", "if=" + f, "iflag=nocache", "count=0", "status=none"));
    }
    if (cgroup == null) {
      return "no memory limit (cgroup unavailable); pages evicted from " + files.size() + " files";
    }
    Files.writeString(
        Path.of(cgroup, "cgroup.procs"), Long.toString(ProcessHandle.current().pid()));
    return "joined "
        + Path.of(cgroup).getFileName()
        + " (limit "
        + Files.readString(Path.of(cgroup, "memory.limit_in_bytes")).trim()
        + " B); pages evicted from "
        + files.size()
        + " files";
  }

  private static void run(List<String> command) throws IOException {
    try {
      Process p =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      int rc = p.waitFor();
      if (rc != 0) {
        throw new IOException(command + " exited with " + rc);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted running " + command, e);
    }
  }
}
