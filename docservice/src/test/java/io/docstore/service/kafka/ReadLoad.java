package io.docstore.service.kafka;

import io.docstore.client.Document;
import io.docstore.client.ShardedDocClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reader threads that multi-get random documents through a {@link ShardedDocClient} until stopped,
 * each answer checked against the documents the test expects (unchanged while they read): a read
 * that fails or returns anything else is recorded. For tests that move partitions under load.
 */
final class ReadLoad implements AutoCloseable {

  private static final int BATCH = 50;

  private final AtomicBoolean stop = new AtomicBoolean();
  private final AtomicLong reads = new AtomicLong();
  private final List<String> failures = Collections.synchronizedList(new ArrayList<>());
  private final List<Thread> threads = new ArrayList<>();

  /**
   * Starts {@code threads} readers of ids 0 to {@code ids - 1}; {@code expected} maps each to its
   * body (absent: the document must read as missing).
   */
  static ReadLoad start(
      ShardedDocClient client, Map<Long, String> expected, int ids, int threads, long seed) {
    ReadLoad load = new ReadLoad();
    Random seeds = new Random(seed);
    for (int t = 0; t < threads; t++) {
      Random random = new Random(seeds.nextLong());
      Thread r = new Thread(() -> load.read(client, expected, ids, random), "read-load-" + t);
      r.start();
      load.threads.add(r);
    }
    return load;
  }

  private void read(ShardedDocClient client, Map<Long, String> expected, int ids, Random random) {
    while (!stop.get()) {
      long[] asked = random.longs(BATCH, 0, ids).toArray();
      try {
        Document[] got = client.getAll(asked);
        for (int i = 0; i < asked.length; i++) {
          String have = got[i] == null ? null : new String(got[i].body(), StandardCharsets.UTF_8);
          if (!Objects.equals(have, expected.get(asked[i]))) {
            failures.add(
                "document " + asked[i] + ": read " + have + ", want " + expected.get(asked[i]));
          }
        }
        reads.incrementAndGet();
      } catch (RuntimeException e) {
        failures.add(e.toString());
      }
    }
  }

  /** Multi-gets answered so far. */
  long reads() {
    return reads.get();
  }

  /** Waits until {@code more} multi-gets more than now were answered (60 s at most). */
  void awaitMore(long more) throws InterruptedException {
    long until = reads.get() + more;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (reads.get() < until && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
  }

  /** Stops the readers; returns the failed and wrong reads. */
  List<String> stop() throws InterruptedException {
    stop.set(true);
    for (Thread t : threads) {
      t.join();
    }
    return List.copyOf(failures);
  }

  @Override
  public void close() throws InterruptedException {
    stop();
  }
}
