package io.docstore.kafka.local;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A {@link LocalKafka} broker in a child JVM, for tests: free loopback ports, the caller's
 * directory (the broker's data in {@code DIR/logs}, its log in {@code DIR/broker.log}), and the
 * same ports and directory across {@link #restart()}.
 *
 * <p>The child runs {@code java -Xmx512m} with the serial collector and the C1 compiler only (a
 * test suite starts a broker a dozen times and gives it little to do: it is ready about a second
 * sooner and takes less CPU from the code under test; {@code scripts/cluster} and the benchmarks
 * run {@link LocalKafka} with the JVM's defaults) with this module's classes or jar and the class
 * path the build wrote beside them, {@code target/kafka-local.classpath} (maven-dependency-plugin
 * {@code build-classpath} at {@code generate-resources}); it fails with a clear message when that
 * file is missing. The child watches the pipe on its stdin and shuts down when it closes, so a
 * broker does not outlive a test JVM that was killed; still, close this in a {@code finally} or an
 * {@code @AfterEach}/{@code @AfterAll}.
 *
 * <p>Not thread-safe: one test thread drives it.
 */
public final class KafkaProcess implements AutoCloseable {

  /** The broker JVM's heap: enough for a test broker on a 2-core box. */
  public static final String HEAP = "512m";

  private static final long START_TIMEOUT_SECONDS = 120;
  private static final long STOP_TIMEOUT_SECONDS = 60;

  private final Path dir;
  private final int port;
  private final int controllerPort;

  /** The SASL/PLAIN listener's port, or -1; its one user as {@code NAME:PASSWORD}. */
  private final int saslPort;

  private final String saslUser;
  private Process process;

  private KafkaProcess(Path dir, int port, int controllerPort, int saslPort, String saslUser) {
    this.dir = dir;
    this.port = port;
    this.controllerPort = controllerPort;
    this.saslPort = saslPort;
    this.saslUser = saslUser;
  }

  /**
   * Starts a broker on two free loopback ports with its data under {@code dir} (created if needed)
   * and returns once it serves clients ({@link #bootstrap()}).
   */
  public static KafkaProcess start(Path dir) throws IOException, InterruptedException {
    int[] ports = freePorts(2);
    KafkaProcess k = new KafkaProcess(dir, ports[0], ports[1], -1, null);
    k.restart();
    return k;
  }

  /**
   * {@link #start(Path)} with a third port, {@link #saslBootstrap()}, where clients must
   * authenticate with SASL/PLAIN as {@code user} with {@code password} ({@link LocalKafka}).
   */
  public static KafkaProcess startWithSasl(Path dir, String user, String password)
      throws IOException, InterruptedException {
    int[] ports = freePorts(3);
    KafkaProcess k = new KafkaProcess(dir, ports[0], ports[1], ports[2], user + ":" + password);
    k.restart();
    return k;
  }

  /** {@code 127.0.0.1:PORT} of the SASL/PLAIN listener. */
  public String saslBootstrap() {
    if (saslPort < 0) {
      throw new IllegalStateException("started without a SASL listener");
    }
    return "127.0.0.1:" + saslPort;
  }

  /** {@code 127.0.0.1:PORT}, for {@code bootstrap.servers}. */
  public String bootstrap() {
    return "127.0.0.1:" + port;
  }

  /** The broker's directory (its data in {@code logs/}, its log in {@code broker.log}). */
  public Path dir() {
    return dir;
  }

  /** Whether the broker's JVM is running. */
  public boolean isAlive() {
    return process != null && process.isAlive();
  }

  /**
   * (Re)starts the broker on the same directory and ports and waits until it serves clients.
   *
   * @throws IllegalStateException when it is running
   * @throws IOException when it exits or is not ready within two minutes (then it is killed; the
   *     exception quotes the end of {@code broker.log})
   */
  public void restart() throws IOException, InterruptedException {
    if (isAlive()) {
      throw new IllegalStateException("the broker on " + bootstrap() + " is still running");
    }
    Files.createDirectories(dir);
    Path log = dir.resolve("broker.log");
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx" + HEAP);
    cmd.add("-XX:+UseSerialGC");
    cmd.add("-XX:TieredStopAtLevel=1");
    cmd.add("--enable-native-access=ALL-UNNAMED"); // zstd-jni, lz4-java, snappy-java
    cmd.add("-cp");
    cmd.add(classPath());
    cmd.add(LocalKafka.class.getName());
    cmd.addAll(
        List.of(
            "--dir",
            dir.toString(),
            "--port",
            Integer.toString(port),
            "--controller-port",
            Integer.toString(controllerPort),
            "--stop-when-stdin-closes"));
    if (saslPort > 0) {
      cmd.addAll(List.of("--sasl-port", Integer.toString(saslPort), "--sasl-user", saslUser));
    }
    process =
        new ProcessBuilder(cmd)
            .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    Process p = process;
    CompletableFuture<String> ready = new CompletableFuture<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                  if (line.startsWith(LocalKafka.READY)) {
                    ready.complete(line);
                  }
                }
                ready.completeExceptionally(
                    new IOException("the broker exited before it was ready"));
              } catch (IOException e) {
                ready.completeExceptionally(e);
              }
            },
            "kafka-process-stdout-" + port);
    reader.setDaemon(true);
    reader.start();
    try {
      ready.get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      kill();
      throw new IOException(
          "the broker on "
              + bootstrap()
              + " did not start ("
              + (e instanceof TimeoutException
                  ? "not ready in " + START_TIMEOUT_SECONDS + " s"
                  : e.getCause().getMessage())
              + "); the end of "
              + log
              + ":\n"
              + tail(log),
          e);
    }
  }

  /**
   * SIGTERM, then waits for the clean shutdown (SIGKILL after a minute). Nothing when not running.
   */
  public void stop() throws InterruptedException {
    if (process == null) {
      return;
    }
    process.destroy();
    if (!process.waitFor(STOP_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      kill();
    }
  }

  /** SIGKILL, as a crash would, and waits until the process is gone. */
  public void kill() throws InterruptedException {
    if (process != null) {
      process.destroyForcibly();
      process.waitFor();
    }
  }

  /**
   * {@link #stop()}; when interrupted while waiting, a SIGKILL instead (the interrupt is kept), so
   * that no broker outlives a test.
   */
  @Override
  public void close() {
    try {
      stop();
    } catch (InterruptedException e) {
      if (process != null) {
        process.destroyForcibly();
      }
      Thread.currentThread().interrupt();
    }
  }

  /** This module's classes (or jar) and the runtime class path the build wrote beside them. */
  static String classPath() throws IOException {
    Path own;
    try {
      own = Path.of(LocalKafka.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IOException(e);
    }
    Path file = own.getParent().resolve("kafka-local.classpath");
    if (!Files.isRegularFile(file)) {
      throw new IOException(
          "no "
              + file
              + ": the broker's class path is written by the kafka-local build (mvn -pl"
              + " kafka-local -am generate-resources or any later phase)");
    }
    return own + File.pathSeparator + Files.readString(file, StandardCharsets.UTF_8).trim();
  }

  /** {@code n} distinct loopback ports that were free a moment ago (for a child to bind). */
  public static int[] freePorts(int n) throws IOException {
    ServerSocket[] sockets = new ServerSocket[n];
    try {
      int[] ports = new int[n];
      for (int i = 0; i < n; i++) {
        sockets[i] = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        ports[i] = sockets[i].getLocalPort();
      }
      return ports;
    } finally {
      for (ServerSocket s : sockets) {
        if (s != null) {
          s.close();
        }
      }
    }
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException | UncheckedIOException e) {
      return "(unreadable: " + e.getMessage() + ")";
    }
  }
}
