package io.docstore.service.torture;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.service.testing.MemcachedProcess;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Logs a person can read during an outage: a {@code serve} child JVM with the product's logging
 * configuration ({@code config/logback.xml}) and a memcached server that is not there logs a few
 * lines that say what is wrong and what docstore does, not the client library's ERROR lines with
 * stack traces at every reconnect attempt (every 1-3 s); and a normal shutdown does not log the
 * memcached disconnect as a fault.
 */
class TortureMemcachedLogTest {

  @TempDir Path dir;

  @Test
  void aMissingMemcachedIsReportedBrieflyAndAShutdownIsQuiet() throws Exception {
    int dead;
    try (ServerSocket s = new ServerSocket(0)) {
      dead = s.getLocalPort(); // free once closed: nothing listens there
    }
    Path logback = Path.of("").toAbsolutePath().getParent().resolve("config/logback.xml");
    assertThat(logback).exists();
    Path log = dir.resolve("serve.log");
    try (ServeJvm serve = serveWithMemcached(dir.resolve("data"), log, logback, dead)) {
      Thread.sleep(8_000); // several reconnect rounds of the client
      List<String> lines = Files.readAllLines(log);
      assertThat(lines.stream().filter(l -> l.contains("memcached")).count())
          .as("lines about the missing memcached in 8 s:%n%s", String.join("\n", lines))
          .isPositive();
      assertThat(
              lines.stream().filter(l -> l.contains(" ERROR ") || l.startsWith("\tat ")).toList())
          .as("ERROR lines or stack traces while memcached is missing")
          .isEmpty();
      assertThat(lines.stream().filter(l -> l.contains(" WARN ") || l.contains(" ERROR ")).count())
          .as("warnings in 8 s of outage (rate-limited):%n%s", String.join("\n", lines))
          .isLessThanOrEqualTo(6);
    }
  }

  @Test
  void aNormalShutdownDoesNotReportTheDisconnectAsAFault() throws Exception {
    Path logback = Path.of("").toAbsolutePath().getParent().resolve("config/logback.xml");
    Path log = dir.resolve("serve2.log");
    try (MemcachedProcess memcached = MemcachedProcess.start();
        ServeJvm serve = serveWithMemcached(dir.resolve("data2"), log, logback, memcached.port())) {
      Thread.sleep(1_000);
      serve.process.destroy(); // SIGTERM: a normal shutdown
      assertThat(serve.awaitExit(30)).isTrue();
    }
    assertThat(Files.readAllLines(log))
        .as("the shutdown's log")
        .noneMatch(l -> l.contains("disconnected; reads fall back to disk"));
  }

  /** {@code serve} with the product's logging and one memcached server at {@code port}. */
  private ServeJvm serveWithMemcached(Path data, Path log, Path logback, int port)
      throws Exception {
    Path conf = dir.resolve(data.getFileName() + ".conf");
    Files.writeString(conf, "docstore.cache.memcached.servers = [\"127.0.0.1:" + port + "\"]\n");
    return ServeJvm.launch(
        log,
        List.of("-Dlogback.configurationFile=" + logback),
        "serve",
        "--config",
        conf.toString(),
        "--data",
        data.toString());
  }
}
