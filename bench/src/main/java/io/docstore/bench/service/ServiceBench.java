package io.docstore.bench.service;

import io.docstore.bench.data.JobDocGenerator;
import io.docstore.client.DocClient;
import io.docstore.client.Document;
import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
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
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * {@code ndjson N FILE [DOC_BYTES]}: writes N job documents (ids 0..N-1) as import NDJSON, each of
 * about DOC_BYTES bytes (default {@value JobDocGenerator#DEFAULT_DOC_BYTES}, the ~1 KB documents of
 * every other benchmark; at least {@value JobDocGenerator#MIN_DOC_BYTES}; see {@link
 * JobDocGenerator#JobDocGenerator(long, int)}). {@code static FILE DIR}: writes each document of an
 * NDJSON file written by {@code ndjson} to {@code DIR/<id>}, byte for byte, for a static file
 * server to serve the same documents. {@code rpc HOST:PORT N BATCH THREADS SECONDS}: batched
 * multi-gets of random ids below N through {@code DocClient}, printing calls/s, documents/s and
 * per-call latency percentiles (and a {@code result key=value ...} line for scripts); every
 * returned document's id is checked. {@code pauses LOGFILE FROM TO [FROM TO ...]}: the
 * stop-the-world pauses of a safepoint log ({@link SafepointLog}) that ended within each window of
 * epoch milliseconds, one line per window. {@code writes ADMIN_HOST:PORT RPC_HOST:PORT THREADS
 * SECONDS}: the measurement behind writes over the admin port (docs/decisions.md, "A client module,
 * docstore-client, and writes over the admin port"): three phases of SECONDS on THREADS threads,
 * {@code DocClient.put} of job documents (durable writes over HTTP), {@code GET /healthz} on the
 * admin port (an HTTP round trip that does no store work) and {@code DocClient.get} of the written
 * ids (an RPC round trip), each printing operations/s and latency percentiles.
 */
public final class ServiceBench {

  private ServiceBench() {}

  public static void main(String[] args) throws Exception {
    switch (args.length > 0 ? args[0] : "") {
      case "ndjson" ->
          ndjson(
              Long.parseLong(args[1]),
              Path.of(args[2]),
              args.length > 3 ? Integer.parseInt(args[3]) : JobDocGenerator.DEFAULT_DOC_BYTES);
      case "static" -> staticFiles(Path.of(args[1]), Path.of(args[2]));
      case "rpc" ->
          rpc(
              args[1],
              Long.parseLong(args[2]),
              Integer.parseInt(args[3]),
              Integer.parseInt(args[4]),
              Integer.parseInt(args[5]));
      case "pauses" -> pauses(Path.of(args[1]), Arrays.copyOfRange(args, 2, args.length));
      case "writes" ->
          writes(
              address(args[1]),
              address(args[2]),
              Integer.parseInt(args[3]),
              Integer.parseInt(args[4]));
      default -> {
        System.err.println(
            "usage: ndjson N FILE [DOC_BYTES] | static FILE DIR"
                + " | rpc HOST:PORT N BATCH THREADS SECONDS"
                + " | pauses LOGFILE FROM TO [FROM TO ...]"
                + " | writes ADMIN_HOST:PORT RPC_HOST:PORT THREADS SECONDS");
        System.exit(2);
      }
    }
  }

  private static void ndjson(long n, Path file, int docBytes) throws IOException {
    JobDocGenerator gen = new JobDocGenerator(1, docBytes);
    try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 20)) {
      for (long id = 0; id < n; id++) {
        out.write(("{\"id\":" + id + ",\"doc\":").getBytes(StandardCharsets.US_ASCII));
        out.write(gen.next(id));
        out.write("}\n".getBytes(StandardCharsets.US_ASCII));
      }
    }
  }

  private static void staticFiles(Path ndjson, Path dir) throws IOException {
    Files.createDirectories(dir);
    String prefix = "{\"id\":";
    String middle = ",\"doc\":";
    long n = 0;
    try (BufferedReader in = Files.newBufferedReader(ndjson, StandardCharsets.UTF_8)) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        // Lines are exactly {"id":N,"doc":DOC} as ndjson writes them.
        int comma = line.indexOf(',');
        if (!line.startsWith(prefix)
            || comma < 0
            || !line.startsWith(middle, comma)
            || !line.endsWith("}")) {
          throw new IOException(
              ndjson + " line " + (n + 1) + ": not a line written by `ServiceBench ndjson`");
        }
        long id = Long.parseLong(line.substring(prefix.length(), comma));
        String doc = line.substring(comma + middle.length(), line.length() - 1);
        Files.write(dir.resolve(Long.toString(id)), doc.getBytes(StandardCharsets.UTF_8));
        n++;
      }
    }
    System.out.printf("wrote %d documents as files%n", n);
  }

  private static void pauses(Path log, String[] windows) throws IOException {
    if (windows.length == 0 || windows.length % 2 != 0) {
      throw new IllegalArgumentException(
          "pauses LOGFILE FROM TO [FROM TO ...] (epoch milliseconds)");
    }
    List<SafepointLog.Pause> all =
        SafepointLog.parse(Files.readAllLines(log, StandardCharsets.UTF_8));
    for (int i = 0; i < windows.length; i += 2) {
      System.out.println(
          SafepointLog.window(all, Long.parseLong(windows[i]), Long.parseLong(windows[i + 1]))
              .line());
    }
  }

  private static InetSocketAddress address(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    return new InetSocketAddress(
        hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
  }

  /** One operation of a {@link #writes} phase, given the thread's random source. */
  private interface Op {
    void run(SplittableRandom random) throws Exception;
  }

  private static final long WRITE_IDS = 100_000;

  private static void writes(
      InetSocketAddress admin, InetSocketAddress rpc, int threads, int seconds) throws Exception {
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    HttpRequest healthz =
        HttpRequest.newBuilder(
                URI.create("http://" + admin.getHostString() + ":" + admin.getPort() + "/healthz"))
            .build();
    AtomicLong written = new AtomicLong();
    try (DocClient client =
        DocClient.builder()
            .servers(List.of(rpc))
            .admin(admin)
            .slotsPerServer(Math.max(8, threads * 2))
            .build()) {
      phase(
          "put (admin HTTP, durable)",
          threads,
          seconds,
          random -> {
            long id = random.nextLong(WRITE_IDS);
            client.put(id, JobDocGenerator.document(id, 1));
            written.incrementAndGet();
          });
      phase(
          "GET /healthz (admin HTTP)",
          threads,
          seconds,
          random -> {
            if (http.send(healthz, HttpResponse.BodyHandlers.discarding()).statusCode() != 200) {
              throw new IOException("healthz answered otherwise than 200");
            }
          });
      phase(
          "get (RPC)",
          threads,
          seconds,
          random -> client.get(random.nextLong(Math.min(WRITE_IDS, written.get()))));
    }
  }

  /** Runs {@code op} on {@code threads} threads for {@code seconds} and prints the rates. */
  private static void phase(String name, int threads, int seconds, Op op) throws Exception {
    Histogram latency = new Histogram(3);
    AtomicLong ops = new AtomicLong();
    long start = System.nanoTime();
    long end = start + seconds * 1_000_000_000L;
    List<Thread> workers = new ArrayList<>();
    List<Exception> failures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      SplittableRandom random = new SplittableRandom(t);
      Thread w =
          new Thread(
              () -> {
                Histogram mine = new Histogram(3);
                try {
                  while (System.nanoTime() < end) {
                    long t0 = System.nanoTime();
                    op.run(random);
                    mine.recordValue((System.nanoTime() - t0) / 1_000);
                    ops.incrementAndGet();
                  }
                } catch (Exception e) {
                  synchronized (failures) {
                    failures.add(e);
                  }
                }
                synchronized (latency) {
                  latency.add(mine);
                }
              });
      w.start();
      workers.add(w);
    }
    for (Thread w : workers) {
      w.join();
    }
    if (!failures.isEmpty()) {
      throw failures.get(0);
    }
    double secs = (System.nanoTime() - start) / 1e9;
    System.out.printf(
        Locale.ROOT,
        "%s: %d threads, %.1f s: %,.0f ops/s; p50 %.3f ms, p99 %.3f ms, mean %.3f ms%n",
        name,
        threads,
        secs,
        ops.get() / secs,
        latency.getValueAtPercentile(50) / 1000.0,
        latency.getValueAtPercentile(99) / 1000.0,
        latency.getMean() / 1000.0);
  }

  private static void rpc(String server, long n, int batch, int threads, int seconds)
      throws Exception {
    InetSocketAddress addr = address(server);
    AtomicLong docs = new AtomicLong();
    AtomicLong calls = new AtomicLong();
    AtomicLong wrong = new AtomicLong();
    Histogram latency = new Histogram(3);
    long start = System.nanoTime();
    long end = start + seconds * 1_000_000_000L;
    try (DocClient client =
        DocClient.builder()
            .servers(List.of(addr))
            .slotsPerServer(Math.max(8, threads * 2))
            .requestTimeout(Duration.ofSeconds(10))
            .build()) {
      List<Thread> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        SplittableRandom random = new SplittableRandom(t);
        Thread w =
            new Thread(
                () -> {
                  long[] ids = new long[batch];
                  Histogram mine = new Histogram(3);
                  while (System.nanoTime() < end) {
                    for (int i = 0; i < batch; i++) {
                      ids[i] = random.nextLong(n);
                    }
                    long t0 = System.nanoTime();
                    Document[] got = client.getAll(ids);
                    mine.recordValue((System.nanoTime() - t0) / 1_000);
                    for (int i = 0; i < batch; i++) {
                      if (got[i] == null || got[i].id() != ids[i]) {
                        wrong.incrementAndGet();
                      }
                    }
                    docs.addAndGet(batch);
                    calls.incrementAndGet();
                  }
                  synchronized (latency) {
                    latency.add(mine);
                  }
                });
        w.start();
        workers.add(w);
      }
      for (Thread w : workers) {
        w.join();
      }
    }
    double secs = (System.nanoTime() - start) / 1e9;
    System.out.printf(
        Locale.ROOT,
        "rpc getAll: batch %d, %d threads, %.1f s: %,.0f calls/s, %,.0f documents/s; per call"
            + " p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms; missing or wrong: %d%n",
        batch,
        threads,
        secs,
        calls.get() / secs,
        docs.get() / secs,
        latency.getValueAtPercentile(50) / 1000.0,
        latency.getValueAtPercentile(99) / 1000.0,
        latency.getValueAtPercentile(99.9) / 1000.0,
        wrong.get());
    System.out.printf(
        Locale.ROOT,
        "result requests=%d duration_us=%d p50_us=%d p99_us=%d p999_us=%d errors=%d non2xx=0%n",
        calls.get(),
        Math.round(secs * 1e6),
        latency.getValueAtPercentile(50),
        latency.getValueAtPercentile(99),
        latency.getValueAtPercentile(99.9),
        wrong.get());
  }
}
