package io.docstore.service.torture;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Recorder;

/**
 * A mixed write load over the admin HTTP API (60% PUT, 20% DELETE, 20% bulk of 2-16 lines) that
 * records every write in an {@link AckLedger} before sending it and every acknowledgement after.
 * Each thread owns its own ID range, so an ID has at most one write in flight. Threads stop when
 * told to, or when {@code stopOnError} and the server stops answering (it was killed).
 *
 * <p>Thread-safe: start once, stop once.
 */
final class LoadClient implements AutoCloseable {

  private static final Pattern BULK_OK =
      Pattern.compile("\\{\"line\":\\d+,\"id\":(\\d+),\"seq\":(\\d+)}");
  private static final Pattern SEQ = Pattern.compile("\"seq\":(\\d+)");

  private final String adminUrl;
  private final AckLedger ledger;
  private final HttpClient http;
  private final AtomicBoolean stop = new AtomicBoolean();
  private final AtomicLong sent = new AtomicLong();
  private final AtomicLong rejected = new AtomicLong();
  private final AtomicLong errors = new AtomicLong();
  private final Map<Integer, Long> statuses = new LinkedHashMap<>();
  private final Recorder latency = new Recorder(3);
  private final List<Thread> threads = new ArrayList<>();
  private final boolean stopOnError;
  private volatile String lastRejection = "";
  private volatile Pacer pacer;

  /**
   * @param idsPerThread thread {@code t} writes IDs {@code base + t*idsPerThread ...}
   * @param maxPad largest padding in a body (bodies are JSON objects of ~40 + pad bytes)
   */
  LoadClient(
      String adminUrl,
      AckLedger ledger,
      long seed,
      int nThreads,
      long base,
      int idsPerThread,
      int maxPad,
      boolean stopOnError) {
    this.adminUrl = adminUrl;
    this.ledger = ledger;
    this.stopOnError = stopOnError;
    this.http =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1)
            .build();
    for (int t = 0; t < nThreads; t++) {
      long first = base + (long) t * idsPerThread;
      Random rnd = new Random(seed * 1_000_003L + t);
      Thread th = new Thread(() -> run(rnd, first, idsPerThread, maxPad), "load-" + t);
      th.setDaemon(true);
      threads.add(th);
    }
  }

  /**
   * Paces the writes of all threads to {@code pacer}'s rate (null: as fast as answered); settable
   * while running.
   */
  LoadClient pace(Pacer pacer) {
    this.pacer = pacer;
    return this;
  }

  LoadClient start() {
    threads.forEach(Thread::start);
    return this;
  }

  private void run(Random rnd, long first, int n, int maxPad) {
    long counter = 0;
    while (!stop.get()) {
      Pacer p = pacer;
      if (p != null) {
        p.acquire();
      }
      int op = rnd.nextInt(10);
      try {
        long t0 = System.nanoTime();
        int status;
        if (op < 6) {
          long id = first + rnd.nextInt(n);
          byte[] body = body(rnd, id, counter++, maxPad);
          ledger.begin(id, body);
          HttpResponse<String> r =
              send(
                  HttpRequest.newBuilder(URI.create(adminUrl + "/docs/" + id))
                      .PUT(HttpRequest.BodyPublishers.ofByteArray(body)));
          status = r.statusCode();
          if (status == 200) {
            ledger.ack(id, seq(r.body()));
          }
        } else if (op < 8) {
          long id = first + rnd.nextInt(n);
          ledger.begin(id, null);
          HttpResponse<String> r =
              send(HttpRequest.newBuilder(URI.create(adminUrl + "/docs/" + id)).DELETE());
          status = r.statusCode();
          if (status == 200) {
            ledger.ack(id, seq(r.body()));
          }
        } else {
          StringBuilder lines = new StringBuilder();
          java.util.Set<Long> ids = new java.util.LinkedHashSet<>();
          int want = 2 + rnd.nextInt(15);
          while (ids.size() < Math.min(want, n)) {
            ids.add(first + rnd.nextInt(n));
          }
          for (long id : ids) {
            if (rnd.nextInt(5) == 0) {
              ledger.begin(id, null);
              lines.append("{\"id\":").append(id).append(",\"op\":\"delete\"}\n");
            } else {
              byte[] body = body(rnd, id, counter++, maxPad);
              ledger.begin(id, body);
              lines
                  .append("{\"id\":")
                  .append(id)
                  .append(",\"doc\":")
                  .append(new String(body, StandardCharsets.UTF_8))
                  .append("}\n");
            }
          }
          HttpResponse<String> r =
              send(
                  HttpRequest.newBuilder(URI.create(adminUrl + "/docs/_bulk"))
                      .POST(HttpRequest.BodyPublishers.ofString(lines.toString())));
          status = r.statusCode();
          if (status == 200) {
            Matcher m = BULK_OK.matcher(r.body());
            while (m.find()) {
              ledger.ack(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)));
            }
          }
        }
        latency.recordValue(Math.max(1, (System.nanoTime() - t0) / 1000));
        sent.incrementAndGet();
        synchronized (statuses) {
          statuses.merge(status, 1L, Long::sum);
        }
        if (status != 200) {
          rejected.incrementAndGet();
          lastRejection = status + "";
        }
      } catch (IOException e) {
        errors.incrementAndGet();
        if (stopOnError) {
          return;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private HttpResponse<String> send(HttpRequest.Builder b)
      throws IOException, InterruptedException {
    return http.send(
        b.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static long seq(String json) {
    Matcher m = SEQ.matcher(json);
    if (!m.find()) {
      throw new IllegalStateException("no seq in acknowledgement " + json);
    }
    return Long.parseLong(m.group(1));
  }

  /** A JSON object naming its ID and a counter, padded to a random length (unique per write). */
  static byte[] body(Random rnd, long id, long counter, int maxPad) {
    int pad = rnd.nextInt(maxPad + 1);
    StringBuilder b = new StringBuilder(48 + pad);
    b.append("{\"id\":")
        .append(id)
        .append(",\"n\":")
        .append(counter)
        .append(",\"r\":")
        .append(rnd.nextLong())
        .append(",\"pad\":\"");
    for (int i = 0; i < pad; i++) {
      b.append((char) ('a' + rnd.nextInt(26)));
    }
    return b.append("\"}").toString().getBytes(StandardCharsets.UTF_8);
  }

  long sent() {
    return sent.get();
  }

  long rejected() {
    return rejected.get();
  }

  long errors() {
    return errors.get();
  }

  String lastRejection() {
    return lastRejection;
  }

  Map<Integer, Long> statuses() {
    synchronized (statuses) {
      return new LinkedHashMap<>(statuses);
    }
  }

  /** Write latencies (microseconds) since the last call. */
  org.HdrHistogram.Histogram takeLatency() {
    return latency.getIntervalHistogram();
  }

  /** Stops the threads and waits for them (a write stuck on a dead server times out). */
  @Override
  public void close() {
    stop.set(true);
    try {
      for (Thread t : threads) {
        t.join(60_000);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
