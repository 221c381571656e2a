package io.docstore.service.replica;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A real rsync daemon serving a queue directory, started through {@code scripts/rsync-primary} (so
 * the script and its config template are what the tests exercise) on a free loopback port, and
 * stopped by its pid.
 */
public final class RsyncDaemon implements AutoCloseable {

  private final Process process;
  private final int port;

  private RsyncDaemon(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  public static RsyncDaemon start(Path queueDir, Path stateDir)
      throws IOException, InterruptedException {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    return start(queueDir, stateDir, port);
  }

  /** On a given port: a daemon restarted where the replicas look for it. */
  static RsyncDaemon start(Path queueDir, Path stateDir, int port)
      throws IOException, InterruptedException {
    requireRsync();
    Path script = scripts().resolve("rsync-primary");
    Process p =
        new ProcessBuilder(
                script.toString(),
                "--queue",
                queueDir.toString(),
                "--port",
                String.valueOf(port),
                "--state-dir",
                stateDir.toString())
            .redirectErrorStream(true)
            .redirectOutput(stateDir.resolveSibling(stateDir.getFileName() + ".out").toFile())
            .start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      if (!p.isAlive()) {
        throw new IllegalStateException(
            "rsync daemon exited with "
                + p.exitValue()
                + "; see "
                + stateDir.resolveSibling(stateDir.getFileName() + ".out"));
      }
      try (Socket c = new Socket()) {
        c.connect(new InetSocketAddress("127.0.0.1", port), 200);
        return new RsyncDaemon(p, port);
      } catch (IOException notYet) {
        Thread.sleep(20);
      }
    }
    p.destroyForcibly();
    throw new IllegalStateException("rsync daemon did not listen on port " + port + " within 20 s");
  }

  static Path scripts() {
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.isExecutable(d.resolve("scripts/rsync-primary"))) {
        return d.resolve("scripts");
      }
    }
    throw new IllegalStateException(
        "scripts/rsync-primary not found above " + Path.of("").toAbsolutePath());
  }

  static void requireRsync() {
    try {
      Process p = new ProcessBuilder("rsync", "--version").redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      if (p.waitFor() != 0) {
        throw new IOException("rsync --version exited with " + p.exitValue());
      }
    } catch (IOException | InterruptedException e) {
      throw new IllegalStateException(
          "these tests run the real rsync binary, which is missing or broken ("
              + e.getMessage()
              + "); run scripts/install-deps",
          e);
    }
  }

  /** The daemon's forked children: one per client connection (transfers in progress). */
  java.util.List<ProcessHandle> connections() {
    return process.toHandle().children().toList();
  }

  public String url() {
    return "rsync://127.0.0.1:" + port + "/docstore/";
  }

  int port() {
    return port;
  }

  /** SIGKILLs the daemon and its children (transfers in progress), as {@code kill -9} would. */
  @Override
  public void close() throws InterruptedException {
    process.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
    process.waitFor();
  }
}
