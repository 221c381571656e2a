package io.docstore.service.rpc;

import io.docstore.client.Document;
import io.docstore.io.CorruptionException;
import io.docstore.service.DocumentSource;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An in-memory {@link DocumentSource} for protocol tests (the store itself is tested elsewhere):
 * documents in a map, optional per-call delay, IDs that block on a latch, IDs reported corrupt,
 * positions in the update log.
 */
public final class TestSource implements DocumentSource {

  private final ConcurrentHashMap<Long, Document> docs = new ConcurrentHashMap<>();
  private final Set<Long> corrupt = ConcurrentHashMap.newKeySet();
  private final ConcurrentHashMap<Integer, Long> positions = new ConcurrentHashMap<>();
  private final AtomicLong calls = new AtomicLong();
  private volatile long delayMillis;
  private volatile long blockedId = -1;
  private volatile boolean blockEverything;
  private volatile CountDownLatch gate = new CountDownLatch(0);

  /** Adds {@code id} with body "doc-ID" padded to {@code size} bytes, at sequence {@code seq}. */
  public TestSource put(long id, long seq, int size) {
    byte[] body = new byte[size];
    byte[] text = ("doc-" + id).getBytes(StandardCharsets.UTF_8);
    System.arraycopy(text, 0, body, 0, Math.min(size, text.length));
    docs.put(id, new Document(id, seq, 1_000_000 + seq, body));
    return this;
  }

  /** Adds {@code doc} as given (also broken ones, to test how the server copes with bugs). */
  public TestSource put(Document doc) {
    docs.put(doc.id(), doc);
    return this;
  }

  /** Adds documents 0 until {@code n}, 100 bytes each, sequence = ID + 1. */
  public TestSource fill(int n) {
    for (int i = 0; i < n; i++) {
      put(i, i + 1, 100);
    }
    return this;
  }

  public Document doc(long id) {
    return docs.get(id);
  }

  /** Reads here see {@code partition} of the update log up to {@code next}. */
  public TestSource position(int partition, long next) {
    positions.put(partition, next);
    return this;
  }

  /** As a store: -1 for a partition not held; partitions from 65,536 up are refused. */
  @Override
  public long visibleLogPosition(int partition) {
    if (partition < 0 || partition >= 1 << 16) {
      throw new IllegalArgumentException("partition " + partition + ": at most 65536 partitions");
    }
    return positions.getOrDefault(partition, -1L);
  }

  public void corrupt(long id) {
    corrupt.add(id);
  }

  public void delay(long millis) {
    delayMillis = millis;
  }

  /** Lookups of {@code id} wait until the returned latch is counted down. */
  public CountDownLatch block(long id) {
    CountDownLatch latch = new CountDownLatch(1);
    gate = latch;
    blockedId = id;
    return latch;
  }

  /** Every lookup waits until the returned latch is counted down (a server that hangs). */
  public CountDownLatch blockAll() {
    CountDownLatch latch = new CountDownLatch(1);
    gate = latch;
    blockEverything = true;
    return latch;
  }

  /** getAll/get calls so far. */
  public long calls() {
    return calls.get();
  }

  @Override
  public Document get(long id) throws IOException {
    calls.incrementAndGet();
    return lookup(id);
  }

  @Override
  public Document[] getAll(long[] ids) throws IOException {
    calls.incrementAndGet();
    pause();
    Document[] out = new Document[ids.length];
    for (int i = 0; i < ids.length; i++) {
      out[i] = lookup(ids[i]);
    }
    return out;
  }

  private Document lookup(long id) throws IOException {
    if (id == blockedId || blockEverything) {
      try {
        if (!gate.await(10, TimeUnit.SECONDS)) {
          throw new IOException("test gate never opened");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException(e);
      }
    }
    if (corrupt.contains(id)) {
      throw CorruptionException.checksum(java.nio.file.Path.of("segment-7"), 4096, "block", 1, 2);
    }
    return docs.get(id);
  }

  private void pause() throws IOException {
    long d = delayMillis;
    if (d > 0) {
      try {
        Thread.sleep(d);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException(e);
      }
    }
  }
}
