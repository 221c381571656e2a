package io.docstore.service.torture;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.docstore.service.cli.Main;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A docservice child JVM ({@code docstore serve}, or {@code docstore replica}) on free loopback
 * ports (config overrides as {@code -D}), its stderr (the log) appended to a file the scenario can
 * inspect, its stdout parsed for the URLs. Built like {@code TestSupport.startJvm} (same class path
 * and flags) but keeps the log. Used by the torture scenarios, the multi-process replication test
 * and the Kafka-mode shard tests ({@link #kafkaPositions()}).
 */
public final class ServeJvm implements AutoCloseable {

  private static final Pattern ORIGIN = Pattern.compile("(https?://[^/\\s]+)");

  public final Process process;

  /** {@code http://host:port} of the read port. */
  public final String readUrl;

  /** {@code http://host:port} of the admin port. */
  public final String adminUrl;

  public final int rpcPort;
  public final Path log;

  /** Milliseconds from launch to the URLs being printed (the store has recovered and serves). */
  public final long startMillis;

  private ServeJvm(
      Process process, String readUrl, String adminUrl, int rpcPort, Path log, long startMillis) {
    this.process = process;
    this.readUrl = readUrl;
    this.adminUrl = adminUrl;
    this.rpcPort = rpcPort;
    this.log = log;
    this.startMillis = startMillis;
  }

  /** Starts {@code serve --data data}; {@code jvmArgs} add config overrides and kill points. */
  public static ServeJvm start(Path data, Path log, List<String> jvmArgs) throws IOException {
    return launch(log, jvmArgs, "serve", "--data", data.toString());
  }

  /** Starts {@code replica --config config} (a read replica; docs/replication.md). */
  public static ServeJvm startReplica(Path config, Path log, List<String> jvmArgs)
      throws IOException {
    return launch(log, jvmArgs, "replica", "--config", config.toString());
  }

  /**
   * Starts {@code docstore args...} and waits for the read, admin and RPC lines that {@code serve}
   * and {@code replica} print once they serve.
   */
  public static ServeJvm launch(Path log, List<String> jvmArgs, String... args) throws IOException {
    List<String> cmd = command(jvmArgs, args);
    long t0 = System.nanoTime();
    Process p =
        new ProcessBuilder(cmd)
            .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    String read = null;
    String admin = null;
    int rpc = -1;
    String line;
    while ((read == null || admin == null || rpc < 0) && (line = out.readLine()) != null) {
      String t = line.trim();
      if (t.startsWith("read ")) {
        read = origin(t);
      } else if (t.startsWith("admin ")) {
        admin = origin(t);
      } else if (t.startsWith("rpc ")) {
        String hp = t.split("\\s+")[1];
        rpc = Integer.parseInt(hp.substring(hp.lastIndexOf(':') + 1));
      }
    }
    if (read == null || admin == null) {
      p.destroyForcibly();
      throw new IOException(args[0] + " did not print its URLs; log " + log + ":\n" + tail(log));
    }
    long startMillis = (System.nanoTime() - t0) / 1_000_000;
    Thread drain =
        new Thread(
            () -> {
              try {
                while (out.readLine() != null) {
                  // discard: only the URLs matter
                }
              } catch (IOException e) {
                // the child is gone
              }
            },
            "serve-stdout");
    drain.setDaemon(true);
    drain.start();
    return new ServeJvm(p, read, admin, rpc, log, startMillis);
  }

  private static String origin(String line) {
    Matcher m = ORIGIN.matcher(line);
    return m.find() ? m.group(1) : null;
  }

  /**
   * A smaller index page cache, for children whose own flags bring the direct memory limit down:
   * {@code serve} refuses to start when its caches do not fit.
   */
  public static final String SMALL_CACHES = "-Ddocstore.index.page-cache=32M";

  /**
   * The java command line for {@link Main} with this JVM's classes, like {@code
   * TestSupport.startJvm}, started from a class-data archive of a serve ({@link ServeClassData}).
   */
  static List<String> command(List<String> jvmArgs, String... args) {
    List<String> base = baseFlags();
    ServeClassData.Launch launch = ServeClassData.launch(base);
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(base);
    cmd.addAll(launch.flags());
    cmd.addAll(jvmArgs);
    cmd.add("-cp");
    cmd.add(launch.classPath());
    cmd.add(Main.class.getName());
    cmd.addAll(Arrays.asList(args));
    return cmd;
  }

  /** The flags every child starts with, before its own. */
  private static List<String> baseFlags() {
    List<String> flags = new ArrayList<>();
    flags.add("-Xmx256m");
    // The default caches (index pages, bloom pages, documents: all off the heap, taken as they
    // fill) need more direct memory than the heap-sized default limit of a small test JVM.
    flags.add("-XX:MaxDirectMemorySize=1g");
    flags.add("-XX:+UseSerialGC");
    flags.add("-XX:TieredStopAtLevel=1");
    String more = System.getProperty("docstore.jvm.flags", "");
    if (!more.isBlank()) {
      flags.addAll(Arrays.asList(more.trim().split("\\s+")));
    }
    flags.add(SMALL_CACHES);
    flags.add("-Ddocstore.http.read.port=0");
    flags.add("-Ddocstore.http.admin.port=0");
    flags.add("-Ddocstore.rpc.port=0");
    return flags;
  }

  public long pid() {
    return process.pid();
  }

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /** {@code GET path} on the admin port (e.g. {@code /stats}), as a string. */
  public HttpResponse<String> getAdmin(String path) throws IOException, InterruptedException {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(adminUrl + path))
            .timeout(Duration.ofSeconds(10))
            .GET()
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /**
   * A Kafka-mode serve's position in each of its partitions ({@code /stats}, {@code
   * kafka.partitions[].position}: the next offset to apply), by partition.
   */
  public Map<Integer, Long> kafkaPositions() throws IOException, InterruptedException {
    JsonNode kafka = new ObjectMapper().readTree(getAdmin("/stats").body()).get("kafka");
    Map<Integer, Long> positions = new TreeMap<>();
    for (JsonNode p : kafka.get("partitions")) {
      positions.put(p.get("partition").asInt(), p.get("position").asLong());
    }
    return positions;
  }

  /** The messages applied (or skipped as dead letters) over the partitions of {@code positions}. */
  public static long applied(Map<Integer, Long> positions) {
    return positions.values().stream().mapToLong(p -> Math.max(0, p)).sum();
  }

  /**
   * Polls {@link #kafkaPositions()} every 50 ms until {@code done} accepts them, for up to {@code
   * seconds}; then fails naming them and quoting the end of the log.
   */
  public Map<Integer, Long> awaitKafka(Predicate<Map<Integer, Long>> done, int seconds)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    Map<Integer, Long> positions;
    while (!done.test(positions = kafkaPositions())) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "positions " + positions + " after " + seconds + " s; log " + log + ":\n" + tail(log));
      }
      Thread.sleep(50);
    }
    return positions;
  }

  /** Open file descriptors of the child (Linux {@code /proc}), or -1 where not available. */
  long openFds() {
    try (var s = Files.list(Path.of("/proc", Long.toString(pid()), "fd"))) {
      return s.count();
    } catch (IOException e) {
      return -1;
    }
  }

  public void kill9() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }

  /** Waits for the child to exit by itself (a kill point halts it), up to {@code seconds}. */
  boolean awaitExit(long seconds) throws InterruptedException {
    return process.waitFor(seconds, TimeUnit.SECONDS);
  }

  public static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  /** SIGKILLs the child if it still runs (never leaves it behind). */
  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
      try {
        process.waitFor();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
