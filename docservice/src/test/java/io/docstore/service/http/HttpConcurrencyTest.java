package io.docstore.service.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.TestSupport;
import io.docstore.service.ServiceFixture;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Concurrent writers and readers over HTTP, then a restart: every acknowledged version is served.
 */
class HttpConcurrencyTest {

  @TempDir Path dir;

  @Test
  void concurrentWritersAndReadersThenRestart() throws Exception {
    long seed = TestSupport.seed("HttpConcurrencyTest");
    int writers = 4;
    int perWriter = 150 * TestSupport.scale();
    // Each writer owns its IDs, so the last acknowledged body per ID is the expected one.
    Map<Long, String> last = new ConcurrentHashMap<>();
    Map<Long, Long> lastSeq = new ConcurrentHashMap<>();
    try (ServiceFixture s = ServiceFixture.start(dir)) {
      ExecutorService pool = Executors.newFixedThreadPool(writers * 2);
      List<Future<?>> fs = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int writer = w;
        Random rnd = new Random(seed + w);
        fs.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < perWriter; i++) {
                    long id = writer * 1000L + rnd.nextInt(50);
                    String body = "{\"w\":" + writer + ",\"i\":" + i + "}";
                    HttpResponse<String> r = s.put(id, body);
                    assertThat(r.statusCode()).isEqualTo(200);
                    long seq = Long.parseLong(r.body().replaceAll(".*\"seq\":(\\d+).*", "$1"));
                    last.put(id, body);
                    lastSeq.put(id, seq);
                    // read-your-writes: the acknowledged version (or nothing older) is visible at
                    // once
                    HttpResponse<String> g = s.get("/docs/" + id);
                    assertThat(g.body()).isEqualTo(body);
                  }
                  return null;
                }));
        fs.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < perWriter; i++) {
                    long id = writer * 1000L + rnd.nextInt(50);
                    HttpResponse<String> g = s.get("/docs?ids=" + id + "," + (id + 1));
                    assertThat(g.statusCode()).isEqualTo(200);
                    assertThat(g.body()).startsWith("{\"found\":{");
                  }
                  return null;
                }));
      }
      for (Future<?> f : fs) {
        f.get();
      }
      pool.shutdown();
    }
    try (ServiceFixture s = ServiceFixture.start(dir)) {
      for (Map.Entry<Long, String> e : last.entrySet()) {
        HttpResponse<String> g =
            s.send(HttpRequest.newBuilder(s.read("/docs/" + e.getKey())).build());
        assertThat(g.body()).isEqualTo(e.getValue());
        assertThat(g.headers().firstValue("etag")).hasValue("\"" + lastSeq.get(e.getKey()) + "\"");
      }
    }
  }
}
