package io.docstore.service.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.service.ServiceFixture;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile and broken clients on raw sockets: each gets the right status (or a closed connection),
 * and a well-behaved client keeps being served meanwhile.
 */
class HttpBadInputTest {

  @TempDir Path dir;
  ServiceFixture s;
  int readPort;
  int adminPort;

  @BeforeEach
  void start() throws Exception {
    s =
        ServiceFixture.start(
            dir,
            Map.of(
                "docstore.http.idle-timeout",
                "2s",
                "docstore.queue.max-body",
                "64K",
                "docstore.bulk.max-body",
                "1M"));
    readPort = s.service.readPort();
    adminPort = s.service.adminPort();
    assertThat(s.put(1, "{\"doc\":1}").statusCode()).isEqualTo(200);
  }

  @AfterEach
  void stop() throws Exception {
    s.close();
  }

  private void stillServing() throws Exception {
    HttpResponse<String> r = s.get("/docs/1");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo("{\"doc\":1}");
  }

  private RawHttp.Response oneShot(int port, String request) throws Exception {
    try (RawHttp c = new RawHttp(port)) {
      c.write(request);
      RawHttp.Response r = c.read();
      assertThat(c.closedByServer())
          .as("connection closed after %s", r == null ? "nothing" : r.status())
          .isTrue();
      return r;
    }
  }

  @Test
  void malformedRequestLinesAre400() throws Exception {
    for (String bad :
        List.of(
            "GARBAGE\r\n\r\n",
            "GET\r\n\r\n",
            "GET /docs/1 FTP/1.0\r\n\r\n",
            "GET /docs/1\r\n\r\n")) {
      RawHttp.Response r = oneShot(readPort, bad);
      assertThat(r).as(bad).isNotNull();
      assertThat(r.status()).as(bad).isEqualTo(400);
      stillServing();
    }
    assertThat(oneShot(readPort, "GET /docs/1 HTTP/9.9\r\n\r\n").status()).isEqualTo(505);
  }

  @Test
  void tooLongRequestLineIs414AndHundredThousandIdMultiGetToo() throws Exception {
    assertThat(
            oneShot(readPort, "GET /docs/" + "1".repeat(40_000) + " HTTP/1.1\r\nHost: x\r\n\r\n")
                .status())
        .isEqualTo(414);
    String ids =
        LongStream.range(0, 100_000).mapToObj(Long::toString).collect(Collectors.joining(","));
    RawHttp.Response r = oneShot(readPort, "GET /docs?ids=" + ids + " HTTP/1.1\r\nHost: x\r\n\r\n");
    assertThat(r.status()).isEqualTo(414);
    assertThat(r.body()).contains("request line too long");
    stillServing();
  }

  @Test
  void hugeHeadersAre431() throws Exception {
    RawHttp.Response r =
        oneShot(
            readPort,
            "GET /docs/1 HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(20_000) + "\r\n\r\n");
    assertThat(r.status()).isEqualTo(431);
    stillServing();
  }

  @Test
  void hugeBodiesAre413WithoutReadingThem() throws Exception {
    try (RawHttp c = new RawHttp(adminPort)) {
      c.write("PUT /docs/5 HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n{\"a\":");
      RawHttp.Response r = c.read();
      assertThat(r.status()).isEqualTo(413);
      assertThat(r.body()).contains("over the limit");
      assertThat(c.closedByServer()).isTrue();
    }
    try (RawHttp c = new RawHttp(adminPort)) {
      c.write("POST /docs/_bulk HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
      byte[] chunk = ("10000\r\n" + "x".repeat(0x10000) + "\r\n").getBytes();
      RawHttp.Response r = null;
      for (int i = 0; i < 40 && r == null; i++) {
        try {
          c.write(chunk);
        } catch (java.io.IOException e) {
          break; // closed after the 413
        }
      }
      r = c.read();
      assertThat(r.status()).isEqualTo(413);
    }
    assertThat(
            oneShot(readPort, "GET /docs/1 HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n")
                .status())
        .isEqualTo(413);
    assertThat(s.service.store().lastSequence()).isEqualTo(1);
    stillServing();
  }

  @Test
  void pipelinedRequestsAreAnsweredInOrder() throws Exception {
    s.put(2, "{\"doc\":2}");
    try (RawHttp c = new RawHttp(readPort)) {
      StringBuilder b = new StringBuilder();
      for (String path :
          List.of("/docs/2", "/docs/404", "/docs/1", "/docs?ids=2,1,3", "/docs/x", "/docs/2")) {
        b.append("GET ").append(path).append(" HTTP/1.1\r\nHost: x\r\n\r\n");
      }
      c.write(b.toString());
      List<RawHttp.Response> rs = c.read(6);
      assertThat(rs)
          .extracting(RawHttp.Response::status)
          .containsExactly(200, 404, 200, 200, 400, 200);
      assertThat(rs.get(0).body()).isEqualTo("{\"doc\":2}");
      assertThat(rs.get(2).body()).isEqualTo("{\"doc\":1}");
      assertThat(rs.get(3).body())
          .isEqualTo("{\"found\":{\"2\":{\"doc\":2},\"1\":{\"doc\":1}},\"missing\":[3]}");
      assertThat(rs.get(5).body()).isEqualTo("{\"doc\":2}");
      c.write(
          "HEAD /docs/1 HTTP/1.1\r\nHost: x\r\n\r\nGET /docs/2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
      RawHttp.Response head = c.readHeadOnly();
      assertThat(head.status()).isEqualTo(200);
      assertThat(head.headers().toLowerCase()).contains("content-length: 9");
      RawHttp.Response last = c.read();
      assertThat(last.body()).isEqualTo("{\"doc\":2}");
      assertThat(c.closedByServer()).isTrue();
    }
  }

  @Test
  void http10KeepAliveIsHonouredAndPlain10Closes() throws Exception {
    try (RawHttp c = new RawHttp(readPort)) {
      c.write("GET /docs/1 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
      RawHttp.Response r = c.read();
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.headers().toLowerCase()).contains("connection: keep-alive");
      c.write("GET /docs/1 HTTP/1.0\r\n\r\n");
      assertThat(c.read().body()).isEqualTo("{\"doc\":1}");
      assertThat(c.closedByServer()).isTrue();
    }
  }

  @Test
  void slowLorisGets408WhileOthersAreServed() throws Exception {
    try (RawHttp slow = new RawHttp(readPort)) {
      slow.write("GET /docs/1 HTTP/1.1\r\nHost: x\r\n");
      long t0 = System.nanoTime();
      boolean closed = false;
      for (int i = 0; i < 40 && !closed; i++) {
        stillServing();
        try {
          slow.write("X");
          Thread.sleep(100);
        } catch (java.io.IOException e) {
          closed = true;
        }
        if (System.nanoTime() - t0 > 1_500_000_000L) {
          break;
        }
      }
      RawHttp.Response r = slow.read();
      assertThat(r.status()).isEqualTo(408);
      assertThat(slow.closedByServer()).isTrue();
      assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(5_000);
    }
    stillServing();
  }

  @Test
  void idleConnectionsAreClosed() throws Exception {
    try (RawHttp c = new RawHttp(readPort)) {
      c.write("GET /docs/1 HTTP/1.1\r\nHost: x\r\n\r\n");
      assertThat(c.read().status()).isEqualTo(200);
      long t0 = System.nanoTime();
      assertThat(c.closedByServer()).isTrue();
      assertThat((System.nanoTime() - t0) / 1_000_000).isBetween(1_000L, 8_000L);
    }
  }

  @Test
  void pathTricksNeverReachAnything() throws Exception {
    for (String path :
        List.of(
            "/docs/../../etc/passwd",
            "/../docs/1",
            "/docs/%2e%2e/1",
            "/docs/1/../2",
            "/docs//1",
            "/docs/1?x=../../",
            "/docs/1%2F..")) {
      RawHttp.Response r;
      try (RawHttp c = new RawHttp(readPort)) {
        c.write("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n");
        r = c.read();
      }
      if (path.equals("/docs/1?x=../../")) {
        assertThat(r.status()).as(path).isEqualTo(200);
      } else {
        assertThat(r.status()).as(path).isIn(400, 404);
      }
    }
    stillServing();
  }

  @Test
  void randomGarbageNeverKillsTheServer() throws Exception {
    Random rnd = new Random(io.docstore.io.TestSupport.seed("HttpBadInputTest.garbage"));
    for (int i = 0; i < 30; i++) {
      byte[] junk = new byte[1 + rnd.nextInt(4000)];
      rnd.nextBytes(junk);
      try (RawHttp c = new RawHttp(i % 2 == 0 ? readPort : adminPort)) {
        c.write(junk);
        c.socket.shutdownOutput();
        RawHttp.Response r = c.read();
        if (r != null) {
          assertThat(r.status()).isBetween(400, 499);
        }
      } catch (java.net.SocketException e) {
        // reset by the server: fine
      }
    }
    stillServing();
  }
}
