package io.docstore.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.queue.QueueRecord;
import io.docstore.service.cache.OffHeapDocCache;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Documents with an expiry: readable until it, absent from then on through every read path of the
 * store (single get, multi-get, the copying read of a miss, the in-process cache), across a
 * restart, and replayed with their expiry. Real clock: each test waits for one expiry time.
 */
class ExpiryTest {

  /** Room for a loaded machine between the writes and the reads that must still see them. */
  private static final long LIFETIME_MILLIS = 2500;

  @TempDir Path dir;

  private static byte[] json(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private DocStore open(OffHeapDocCache cache, Duration defaultTtl) throws IOException {
    return DocStore.open(dir, DocStoreOptions.builder(cache).defaultTtl(defaultTtl).build());
  }

  private static void sleepUntil(long epochMillis) throws InterruptedException {
    long wait;
    while ((wait = epochMillis - System.currentTimeMillis()) > 0) {
      Thread.sleep(wait);
    }
  }

  /** What the copying read of a miss answers: the body, or null when absent. */
  private static byte[] copied(DocStore s, long id) throws IOException {
    ByteBuf out = Unpooled.buffer();
    long seq = s.copy(id, out);
    byte[] body = seq < 0 ? null : new byte[out.readableBytes()];
    if (body != null) {
      out.readBytes(body);
    }
    out.release();
    return body;
  }

  @Test
  void aDocumentIsReadableUntilItsExpiryAndAbsentAfterOnEveryReadPath() throws Exception {
    long expires = System.currentTimeMillis() + LIFETIME_MILLIS;
    try (DocStore s = open(new OffHeapDocCache(16L << 20), Duration.ZERO)) {
      List<Written> w =
          s.apply(
              List.of(
                  Update.put(1, json("{\"a\":1}"), expires),
                  Update.put(2, json("{\"b\":2}"), expires),
                  Update.put(3, json("{\"c\":3}")),
                  Update.put(4, json("{\"gone\":1}"), System.currentTimeMillis() - 1)));
      // Before: readable, with the write's sequence as its version; an expiry in the past is
      // absent at once.
      assertThat(s.get(1).body()).isEqualTo(json("{\"a\":1}"));
      assertThat(s.get(1).sequence()).isEqualTo(w.get(0).sequence());
      assertThat(s.getAll(new long[] {2, 3, 4}))
          .extracting(d -> d == null ? null : new String(d.body(), StandardCharsets.UTF_8))
          .containsExactly("{\"b\":2}", "{\"c\":3}", null);
      assertThat(s.get(4)).isNull();
      assertThat(copied(s, 4)).isNull();

      sleepUntil(expires);
      // After: absent from the cache (filled by the reads above) and from the queue alike.
      assertThat(s.get(1)).isNull();
      assertThat(s.getAll(new long[] {1, 2, 3}))
          .extracting(d -> d == null ? null : d.id())
          .containsExactly(null, null, 3L);
      ByteBuf out = Unpooled.buffer();
      assertThat(s.copyIfCached(2, out)).isEqualTo(-1);
      assertThat(out.readableBytes()).isZero();
      out.release();
      assertThat(copied(s, 2)).isNull();
      assertThat(s.get(3).body()).isEqualTo(json("{\"c\":3}"));

      // A new version without an expiry makes it readable again.
      s.put(1, json("{\"a\":\"again\"}"));
      assertThat(s.get(1).body()).isEqualTo(json("{\"a\":\"again\"}"));
    }
    // A cold store (empty cache, records read from the queue) agrees.
    try (DocStore s = open(new OffHeapDocCache(16L << 20), Duration.ZERO)) {
      assertThat(s.get(1).body()).isEqualTo(json("{\"a\":\"again\"}"));
      assertThat(s.get(2)).isNull();
      assertThat(copied(s, 2)).isNull();
      assertThat(s.get(3)).isNotNull();
      assertThat(s.get(4)).isNull();
    }
  }

  @Test
  void aColdReadBeforeTheExpiryCachesTheExpiryWithTheDocument() throws Exception {
    long expires = System.currentTimeMillis() + LIFETIME_MILLIS;
    try (DocStore s = open(new OffHeapDocCache(16L << 20), Duration.ZERO)) {
      s.apply(List.of(Update.put(9, json("{\"x\":9}"), expires)));
    }
    OffHeapDocCache cache = new OffHeapDocCache(16L << 20);
    try (DocStore s = open(cache, Duration.ZERO)) {
      assertThat(copied(s, 9)).isEqualTo(json("{\"x\":9}")); // a miss: read and filled
      assertThat(cache.get(9).expiresAtMillis()).isEqualTo(expires);
      ByteBuf out = Unpooled.buffer();
      assertThat(s.copyIfCached(9, out)).isPositive(); // a hit before the expiry
      out.release();
      sleepUntil(expires);
      assertThat(s.get(9)).isNull();
      assertThat(s.getAll(new long[] {9})[0]).isNull();
    }
  }

  @Test
  void theDefaultTimeToLiveAppliesToPutsWithoutAnExpiryOfTheirOwn() throws Exception {
    long start = System.currentTimeMillis();
    long farFuture = start + Duration.ofDays(30).toMillis();
    try (DocStore s = open(new OffHeapDocCache(16L << 20), Duration.ofMillis(LIFETIME_MILLIS))) {
      s.apply(
          List.of(
              Update.put(1, json("{\"default\":1}")),
              Update.put(2, json("{\"own\":2}"), farFuture),
              Update.delete(3)));
      assertThat(s.get(1)).isNotNull();
      long expires;
      // Replay (what the inbox and tools read back) carries each put's expiry.
      try (DocumentSink.Replay r = s.replay(0)) {
        expires = r.next().expiresAtMillis();
        assertThat(expires)
            .isBetween(start + LIFETIME_MILLIS, System.currentTimeMillis() + LIFETIME_MILLIS);
        assertThat(r.next().expiresAtMillis()).isEqualTo(farFuture);
        assertThat(r.next().isDelete()).isTrue();
      }
      sleepUntil(expires);
      assertThat(s.get(1)).isNull();
      assertThat(s.get(2).body()).isEqualTo(json("{\"own\":2}"));
    }
  }

  /** The queue keeps the expiry in the record (a PUT_EXPIRING), readable by tools. */
  @Test
  void theQueueRecordCarriesTheExpiry() throws Exception {
    long expires = System.currentTimeMillis() + 60_000;
    Written w;
    try (DocStore s = open(new OffHeapDocCache(16L << 20), Duration.ZERO)) {
      w = s.apply(List.of(Update.put(5, json("{\"q\":5}"), expires))).get(0);
    }
    try (var q =
        io.docstore.queue.DocQueue.openReadOnly(
            dir.resolve("queue"), io.docstore.queue.QueueOptions.builder().build())) {
      QueueRecord r;
      try (var t = q.tailer(w.sequence())) {
        r = t.poll();
      }
      assertThat(r.op()).isEqualTo(io.docstore.queue.Op.PUT_EXPIRING);
      assertThat(r.expiresAtMillis()).isEqualTo(expires);
      assertThat(r.document()).isEqualTo(json("{\"q\":5}"));
      assertThat(r.version()).isEqualTo(w.sequence());
    }
  }
}
