package io.docstore.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Configured features of a running service: the inbox and the connection cap. */
class ServiceFeaturesTest {

  @TempDir Path dir;

  @Test
  void inboxFilesBecomeReadableOverHttp() throws Exception {
    Path inbox = dir.resolve("inbox");
    try (ServiceFixture s =
        ServiceFixture.start(
            dir.resolve("data"),
            Map.of(
                "docstore.inbox.dir", inbox.toString(), "docstore.inbox.poll-interval", "50ms"))) {
      Path staged = dir.resolve("batch.staging");
      Files.writeString(
          staged,
          "{\"id\":11,\"doc\":{\"from\":\"inbox\",\"discovered_at\":"
              + System.currentTimeMillis()
              + "}}\n");
      Files.move(staged, inbox.resolve("0001.ndjson"));
      long deadline = System.nanoTime() + 20_000_000_000L;
      while (s.get("/docs/11").statusCode() != 200 && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(s.get("/docs/11").body()).startsWith("{\"from\":\"inbox\"");
      while (!Files.exists(inbox.resolve("done/0001.ndjson")) && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(inbox.resolve("done/0001.ndjson")).exists();
      assertThat(s.adminGet("/metrics").body())
          .contains("docstore_inbox_files_total{result=\"done\"} 1.0")
          .contains("docstore_freshness_discovered_to_readable_seconds_count 1");
    }
  }

  @Test
  void connectionsBeyondTheCapAreClosedAtOnceWhileOthersAreServed() throws Exception {
    try (ServiceFixture s = ServiceFixture.start(dir, Map.of("docstore.http.max-connections", 3))) {
      s.put(1, "{}");
      List<Socket> held = new ArrayList<>();
      try {
        for (int i = 0; i < 3; i++) {
          Socket c = new Socket("127.0.0.1", s.service.readPort());
          held.add(c);
          assertThat(roundTrip(c)).startsWith("HTTP/1.1 200");
        }
        try (Socket extra = new Socket("127.0.0.1", s.service.readPort())) {
          extra.setSoTimeout(5_000);
          OutputStream out = extra.getOutputStream();
          try {
            out.write(
                "GET /docs/1 HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(extra.getInputStream().read()).as("closed without an answer").isEqualTo(-1);
          } catch (java.net.SocketException e) {
            // reset: closed too
          }
        }
        assertThat(roundTrip(held.get(0))).startsWith("HTTP/1.1 200");
      } finally {
        for (Socket c : held) {
          c.close();
        }
      }
    }
  }

  private static String roundTrip(Socket c) throws Exception {
    c.setSoTimeout(5_000);
    c.getOutputStream()
        .write("GET /docs/1 HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    c.getOutputStream().flush();
    InputStream in = c.getInputStream();
    byte[] buf = new byte[4096];
    int n = in.read(buf);
    return new String(buf, 0, Math.max(0, n), StandardCharsets.US_ASCII);
  }
}
