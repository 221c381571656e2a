package io.docstore.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.TestSupport;
import io.docstore.service.torture.ServeJvm;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of a real {@code serve} process under concurrent PUT load: after a restart every
 * acknowledged PUT reads back byte-exact (or, for a key whose next PUT was in flight at the kill,
 * that next version, which may have become durable without being acknowledged).
 */
class ServeKillTest {

  private static final int WRITERS = 4;
  private static final int IDS_PER_WRITER = 300;

  @TempDir Path dir;

  @TempDir Path logs;

  /** What one key may legitimately hold after the crash. */
  record Expect(String acked, long ackedSeq, String inFlight) {}

  /**
   * The process dies by itself at named kill points: between the queue fsync and the index update
   * of a write, and between the index sync and the checkpoint publication.
   */
  @Test
  void everyAcknowledgedPutSurvivesDeathAtKillPoints() throws Exception {
    long seed = TestSupport.seed("ServeKillTest.killPoints");
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    Map<Long, Expect> expected = new ConcurrentHashMap<>();
    String[] points = {
      "docstore.durable-before-indexed@" + (200 + new Random(seed).nextInt(300)),
      "docstore.checkpoint-synced-before-publish@2"
    };
    for (String point : points) {
      try (ServeJvm serve = start("-Ddocstore.killpoint=" + point)) {
        verify(http, serve, expected);
        long acks = load(http, serve, expected, seed, () -> !serve.process.isAlive());
        assertThat(serve.process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(serve.process.exitValue()).as("died at kill point %s", point).isEqualTo(137);
        System.out.println(
            "ServeKillTest: " + acks + " acknowledged PUTs before kill point " + point);
      }
    }
    try (ServeJvm serve = start()) {
      verify(http, serve, expected);
    }
  }

  /** Runs PUT writers against {@code serve} until {@code done}; returns the number acknowledged. */
  private static long load(
      HttpClient http,
      ServeJvm serve,
      Map<Long, Expect> expected,
      long seed,
      java.util.function.BooleanSupplier done)
      throws InterruptedException {
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong acks = new AtomicLong();
    List<Thread> writers = new ArrayList<>();
    for (int w = 0; w < WRITERS; w++) {
      int writer = w;
      Random rnd = new Random(seed + w);
      Thread t =
          new Thread(
              () -> {
                while (!stop.get()) {
                  long id = (long) writer * IDS_PER_WRITER + rnd.nextInt(IDS_PER_WRITER);
                  String body =
                      "{\"w\":"
                          + writer
                          + ",\"r\":"
                          + rnd.nextLong()
                          + ",\"pad\":\""
                          + "x".repeat(rnd.nextInt(2000))
                          + "\"}";
                  Expect before = expected.get(id);
                  expected.put(
                      id,
                      new Expect(
                          before == null ? null : before.acked(),
                          before == null ? 0 : before.ackedSeq(),
                          body));
                  try {
                    HttpResponse<String> r =
                        http.send(
                            HttpRequest.newBuilder(URI.create(serve.adminUrl + "/docs/" + id))
                                .timeout(Duration.ofSeconds(20))
                                .PUT(HttpRequest.BodyPublishers.ofString(body))
                                .build(),
                            HttpResponse.BodyHandlers.ofString());
                    if (r.statusCode() == 200) {
                      long seq = Long.parseLong(r.body().replaceAll(".*\"seq\":(\\d+).*", "$1"));
                      expected.put(id, new Expect(body, seq, null));
                      acks.incrementAndGet();
                    }
                  } catch (Exception e) {
                    return; // the server died under us; this PUT stays "in flight"
                  }
                }
              },
              "writer-" + w);
      t.start();
      writers.add(t);
    }
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (!done.getAsBoolean() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    stop.set(true);
    serve.kill9();
    for (Thread t : writers) {
      t.join(30_000);
    }
    return acks.get();
  }

  @Test
  void everyAcknowledgedPutSurvivesKill9() throws Exception {
    long seed = TestSupport.seed("ServeKillTest");
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    Map<Long, Expect> expected = new ConcurrentHashMap<>();
    int rounds = 2 * TestSupport.scale();
    for (int round = 0; round < rounds; round++) {
      try (ServeJvm serve = start()) {
        verify(http, serve, expected);
        long until =
            System.nanoTime()
                + 1_500_000_000L
                + new Random(seed + round).nextInt(1000) * 1_000_000L;
        long acks =
            load(http, serve, expected, seed + round * 31L, () -> System.nanoTime() >= until);
        System.out.println(
            "ServeKillTest round " + round + ": " + acks + " acknowledged PUTs before kill -9");
      }
    }
    try (ServeJvm serve = start()) {
      verify(http, serve, expected);
    }
  }

  /** {@code serve} on {@code dir}, its index checkpointed every 300 ms. */
  private ServeJvm start(String... jvmArgs) throws IOException {
    List<String> jvm = new ArrayList<>(List.of("-Ddocstore.index.checkpoint-interval=300ms"));
    jvm.addAll(List.of(jvmArgs));
    return ServeJvm.start(dir, logs.resolve("serve.log"), jvm);
  }

  private static void verify(HttpClient http, ServeJvm serve, Map<Long, Expect> expected)
      throws Exception {
    for (Map.Entry<Long, Expect> e : expected.entrySet()) {
      Expect x = e.getValue();
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create(serve.readUrl + "/docs/" + e.getKey())).build(),
              HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() == 404) {
        assertThat(x.acked()).as("id %d was acknowledged but is gone", e.getKey()).isNull();
        continue;
      }
      assertThat(r.statusCode()).isEqualTo(200);
      if (x.inFlight() != null && r.body().equals(x.inFlight())) {
        // The unacknowledged PUT became durable: now it is the version to keep.
        long seq = Long.parseLong(r.headers().firstValue("etag").orElseThrow().replace("\"", ""));
        e.setValue(new Expect(x.inFlight(), seq, null));
        continue;
      }
      assertThat(r.body()).as("id %d", e.getKey()).isEqualTo(x.acked());
      long seq = Long.parseLong(r.headers().firstValue("etag").orElseThrow().replace("\"", ""));
      assertThat(seq).isEqualTo(x.ackedSeq());
      e.setValue(new Expect(x.acked(), x.ackedSeq(), null));
    }
  }
}
