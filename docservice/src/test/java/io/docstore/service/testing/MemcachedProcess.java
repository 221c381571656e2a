package io.docstore.service.testing;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real memcached on a free loopback port (UDP off), started by a test and stopped by pid. Fails
 * with a clear message when the binary is missing.
 */
public final class MemcachedProcess implements AutoCloseable {

  private final int port;
  private Process process;

  private MemcachedProcess(int port) {
    this.port = port;
  }

  /** Starts memcached on a free loopback port and waits until it accepts connections. */
  public static MemcachedProcess start() throws IOException, InterruptedException {
    MemcachedProcess m = new MemcachedProcess(freePort());
    m.restart();
    return m;
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  static String binary() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      File f = new File(dir, "memcached");
      if (f.canExecute()) {
        return f.getPath();
      }
    }
    for (String dir : new String[] {"/usr/bin", "/usr/local/bin", "/usr/sbin"}) {
      File f = new File(dir, "memcached");
      if (f.canExecute()) {
        return f.getPath();
      }
    }
    throw new IllegalStateException(
        "memcached is not installed (needed by the cache tests): run scripts/install-deps"
            + " (or apt-get install -y memcached)");
  }

  /** {@code scripts/memcached-local} of this repository. */
  static java.nio.file.Path script() {
    for (java.nio.file.Path d = java.nio.file.Path.of("").toAbsolutePath();
        d != null;
        d = d.getParent()) {
      java.nio.file.Path f = d.resolve("scripts/memcached-local");
      if (java.nio.file.Files.isExecutable(f)) {
        return f;
      }
    }
    throw new IllegalStateException(
        "scripts/memcached-local not found above " + java.nio.file.Path.of("").toAbsolutePath());
  }

  /** (Re)starts memcached on the same port, empty. */
  public void restart() throws IOException, InterruptedException {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException("memcached on port " + port + " is still running");
    }
    binary(); // a clear message when memcached is missing
    // The operator's script, so that the safe settings it gives (loopback, UDP off) are what the
    // tests run; it execs memcached, so this process is memcached itself (kill, pause).
    List<String> cmd =
        new ArrayList<>(
            List.of(
                script().toString(),
                "--address",
                "127.0.0.1",
                "--port",
                Integer.toString(port),
                "--memory-mb",
                "64"));
    process =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 200);
        return;
      } catch (IOException notYet) {
        if (!process.isAlive()) {
          throw new IOException("memcached exited with " + process.exitValue() + ": " + cmd);
        }
        if (System.nanoTime() > deadline) {
          throw new IOException("memcached did not start listening on " + port);
        }
        Thread.sleep(20); // polling an external process; there is no event to wait on
      }
    }
  }

  /** SIGKILL, as a crash would. */
  public void kill() throws InterruptedException {
    if (process != null) {
      process.destroyForcibly();
      process.waitFor();
    }
  }

  /** SIGSTOP / SIGCONT: memcached keeps its socket open but stops answering (a slow server). */
  public void pause(boolean paused) throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder("kill", paused ? "-STOP" : "-CONT", Long.toString(process.pid()))
            .inheritIO()
            .start();
    if (p.waitFor() != 0) {
      throw new IOException("kill " + (paused ? "-STOP" : "-CONT") + " failed");
    }
    // kill returns once the signal is queued; wait until every thread has actually stopped (or
    // resumed), or a request sent right after could still be served.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (allThreadsStopped() != paused) {
      if (System.nanoTime() > deadline) {
        throw new IOException("memcached did not " + (paused ? "stop" : "resume"));
      }
      Thread.onSpinWait();
    }
  }

  private boolean allThreadsStopped() throws IOException {
    File[] tasks = new File("/proc/" + process.pid() + "/task").listFiles();
    if (tasks == null) {
      throw new IOException("no /proc entry for memcached pid " + process.pid());
    }
    for (File task : tasks) {
      String stat;
      try {
        stat = java.nio.file.Files.readString(new File(task, "stat").toPath());
      } catch (java.nio.file.NoSuchFileException gone) {
        continue; // thread exited
      }
      // Field 3, after the parenthesised command name, is the state; 'T' is stopped.
      char state = stat.charAt(stat.lastIndexOf(')') + 2);
      if (state != 'T') {
        return false;
      }
    }
    return true;
  }

  public int port() {
    return port;
  }

  public InetSocketAddress address() {
    return new InetSocketAddress("127.0.0.1", port);
  }

  @Override
  public void close() throws InterruptedException {
    if (process != null) {
      if (process.isAlive()) {
        try {
          pause(false);
        } catch (IOException ignored) {
          // It may already be gone; killing it below is what matters.
        }
      }
      kill();
    }
  }
}
