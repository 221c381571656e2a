package io.docstore.bench.service;

import io.docstore.bench.data.JobDocGenerator;
import io.docstore.service.Document;
import io.docstore.service.client.DocClient;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * {@code ndjson N FILE}: writes N job documents (ids 0..N-1) as import NDJSON.
 * {@code rpc HOST:PORT N BATCH THREADS SECONDS}: batched multi-gets of random ids below N through
 * {@code DocClient}, printing documents/s and per-batch latency percentiles; every returned
 * document's id is checked.
 */
public final class ServiceBench {

  private ServiceBench() {}

  public static void main(String[] args) throws Exception {
    switch (args.length > 0 ? args[0] : "") {
      case "ndjson" -> ndjson(Long.parseLong(args[1]), Path.of(args[2]));
      case "rpc" -> rpc(args[1], Long.parseLong(args[2]), Integer.parseInt(args[3]), Integer.parseInt(args[4]),
          Integer.parseInt(args[5]));
      default -> {
        System.err.println("usage: ndjson N FILE | rpc HOST:PORT N BATCH THREADS SECONDS");
        System.exit(2);
      }
    }
  }

  private static void ndjson(long n, Path file) throws IOException {
    JobDocGenerator gen = new JobDocGenerator(1);
    try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 20)) {
      for (long id = 0; id < n; id++) {
        out.write(("{\"id\":" + id + ",\"doc\":").getBytes(StandardCharsets.US_ASCII));
        out.write(gen.next(id));
        out.write("}\n".getBytes(StandardCharsets.US_ASCII));
      }
    }
  }

  private static void rpc(String server, long n, int batch, int threads, int seconds) throws Exception {
    int colon = server.lastIndexOf(':');
    InetSocketAddress addr = new InetSocketAddress(server.substring(0, colon), Integer.parseInt(server.substring(colon + 1)));
    AtomicLong docs = new AtomicLong();
    AtomicLong wrong = new AtomicLong();
    Histogram latency = new Histogram(3);
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    try (DocClient client = DocClient.builder().servers(List.of(addr)).slotsPerServer(Math.max(8, threads * 2))
        .requestTimeout(Duration.ofSeconds(10)).build()) {
      List<Thread> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        SplittableRandom random = new SplittableRandom(t);
        Thread w = new Thread(() -> {
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
    System.out.printf("rpc getAll: batch %d, %d threads, %d s: %,d documents/s; per batch p50 %.2f ms, p99 %.2f ms,"
            + " p99.9 %.2f ms; missing or wrong: %d%n", batch, threads, seconds, docs.get() / seconds,
        latency.getValueAtPercentile(50) / 1000.0, latency.getValueAtPercentile(99) / 1000.0,
        latency.getValueAtPercentile(99.9) / 1000.0, wrong.get());
  }
}
