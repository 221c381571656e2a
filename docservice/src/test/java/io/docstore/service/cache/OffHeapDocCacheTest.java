package io.docstore.service.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.io.TestSupport;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class OffHeapDocCacheTest extends DocCacheContractTest {

  @Override
  protected DocCache newCache() {
    return new OffHeapDocCache(64L << 20);
  }

  @Test
  void olderIngestWriteNeverReplacesNewer() {
    cache.set(1, 9, body("nine"));
    cache.set(1, 8, body("eight, finished late"));
    cache.setDeleted(1, 7);
    assertThat(cache.get(1).sequence()).isEqualTo(9);
  }

  @Test
  void staysWithinItsByteBudgetAndDropsTheOldestFirst() {
    long budget = 256 * 1024;
    try (OffHeapDocCache small = new OffHeapDocCache(budget)) {
      byte[] body = new byte[1000];
      for (long id = 0; id < 2_000; id++) {
        small.set(id, id + 1, body);
      }
      assertThat(small.capacityBytes()).isLessThanOrEqualTo(budget);
      assertThat(small.allocatedBytes()).isPositive().isLessThanOrEqualTo(small.capacityBytes());
      assertThat(small.stats().bytes()).isPositive().isLessThanOrEqualTo(small.capacityBytes());
      assertThat(small.stats().bytes()).isEqualTo(small.size() * DocLog.entrySize(1000));
      assertThat(small.evictions()).isEqualTo(2_000 - small.size());
      assertThat(small.get(1_999)).isNotNull();
      assertThat(small.get(0)).isNull();
    }
  }

  @Test
  void documentsReadSinceWrittenOutliveAPassOfWrites() {
    try (OffHeapDocCache c = new OffHeapDocCache(256 * 1024)) {
      for (long id = 0; id < 50; id++) {
        c.set(id, id + 1, new byte[1000]);
      }
      long cold = 1_000;
      for (int round = 0; round < 4; round++) {
        for (long id = 0; id < 50; id++) {
          assertThat(c.get(id)).as("hot %d in round %d", id, round).isNotNull();
        }
        // Writes filling most of the cache each round: plain FIFO would have dropped the hot set in
        // the first round; entries read since they were written are kept.
        for (int i = 0; i < 200; i++, cold++) {
          c.set(cold, cold, new byte[1000]);
        }
      }
      for (long id = 0; id < 50; id++) {
        assertThat(c.get(id)).as("hot %d after the writes", id).isNotNull();
      }
    }
  }

  @Test
  void aVersionTooLargeToCacheNeverLeavesTheOlderOneBehind() {
    try (OffHeapDocCache c = new OffHeapDocCache(1 << 20)) {
      c.set(5, 1, body("small"));
      byte[] big = new byte[c.maxBodyBytes() + 1];
      c.set(5, 2, big);
      assertThat(c.get(5)).as("the old version must not be served").isNull();
      // A reader that looked version 1 up before version 2 was indexed fills it late.
      c.fill(5, 1, body("small"));
      assertThat(c.get(5)).as("nor filled back by a slow reader").isNull();
      ByteBuf out = Unpooled.buffer();
      assertThat(c.copyIfLocal(5, out)).as("nothing to copy").isEqualTo(-1);
      c.set(5, 8, body("smaller again"));
      assertThat(c.get(5).body()).isEqualTo(body("smaller again"));
      c.fill(6, 3, big);
      assertThat(c.get(6)).isNull();
      assertThat(c.tooLarge()).isEqualTo(2);
      byte[] fits = new byte[c.maxBodyBytes()];
      c.set(7, 4, fits);
      assertThat(c.get(7).body()).isEqualTo(fits);
    }
  }

  @Test
  void copiesLiveDocumentsIntoTheCallersBufferAndNothingElse() {
    ByteBuf out = PooledByteBufAllocator.DEFAULT.directBuffer(4);
    try {
      cache.set(1, 4, body("{\"a\":1, longer than the buffer's first capacity}"));
      cache.setDeleted(2, 5);
      out.writeByte('x');
      assertThat(cache.copyIfLocal(1, out)).isEqualTo(4);
      assertThat(out.toString(StandardCharsets.UTF_8))
          .isEqualTo("x{\"a\":1, longer than the buffer's first capacity}");
      int before = out.writerIndex();
      assertThat(cache.copyIfLocal(2, out)).as("tombstone").isEqualTo(-1);
      assertThat(cache.copyIfLocal(3, out)).as("miss").isEqualTo(-1);
      assertThat(out.writerIndex()).isEqualTo(before);
      assertThat(cache.stats().hits()).isEqualTo(1);
    } finally {
      out.release();
    }
  }

  @Test
  void copiesOnePartOfABodyStraightOutOfTheCache() {
    ByteBuf out = PooledByteBufAllocator.DEFAULT.directBuffer(4);
    // A part: the bytes after the first ':' up to the next ',' (or -1 when there is no ':').
    DocCache.Part afterColon =
        (body, at, length) -> {
          for (int i = 0; i < length; i++) {
            if (body.get(at + i) == ':') {
              int end = i + 1;
              while (end < length && body.get(at + end) != ',') {
                end++;
              }
              return (long) (i + 1) << 32 | (end - i - 1);
            }
          }
          return -1;
        };
    try {
      cache.set(1, 4, body("{\"a\":123,\"b\":4}"));
      cache.set(2, 5, body("no colon here"));
      cache.setDeleted(3, 6);
      out.writeByte('x');
      assertThat(cache.copyPartIfLocal(1, afterColon, out)).isEqualTo(4);
      assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("x123");
      int before = out.writerIndex();
      assertThat(cache.copyPartIfLocal(2, afterColon, out)).as("no such part").isEqualTo(-1);
      assertThat(cache.copyPartIfLocal(3, afterColon, out)).as("tombstone").isEqualTo(-1);
      assertThat(cache.copyPartIfLocal(4, afterColon, out)).as("miss").isEqualTo(-1);
      assertThat(out.writerIndex()).isEqualTo(before);
      assertThat(cache.stats().hits()).isEqualTo(1);
    } finally {
      out.release();
    }
  }

  /**
   * Under eviction the cache may forget, but whatever it answers is the newest version (model: a
   * HashMap).
   */
  @Test
  void randomizedUnderEvictionNeverAnswersAStaleVersion() {
    long seed = TestSupport.seed("OffHeapDocCache");
    Random rnd = new Random(seed);
    try (OffHeapDocCache c = new OffHeapDocCache(128 * 1024)) {
      Map<Long, CachedDoc> model = new HashMap<>();
      long seq = 0;
      int answered = 0;
      for (int i = 0; i < 50_000; i++) {
        long id = rnd.nextInt(400);
        int op = rnd.nextInt(10);
        if (op < 3) {
          byte[] b = new byte[rnd.nextInt(rnd.nextInt(10) == 0 ? 3000 : 600)];
          rnd.nextBytes(b);
          c.set(id, ++seq, b);
          model.put(id, new CachedDoc(seq, b));
        } else if (op == 3) {
          c.setDeleted(id, ++seq);
          model.put(id, new CachedDoc(seq, null));
        } else if (op < 6) {
          CachedDoc now = model.get(id); // a read miss fills what the store holds now
          if (now != null && !now.deleted()) {
            c.fill(id, now.sequence(), now.body());
          }
        } else {
          CachedDoc got = c.get(id);
          if (got != null) {
            answered++;
            CachedDoc want = model.get(id);
            assertThat(want)
                .as("seed %d step %d id %d: cached but never written", seed, i, id)
                .isNotNull();
            assertThat(got.sequence())
                .as("seed %d step %d id %d", seed, i, id)
                .isEqualTo(want.sequence());
            assertThat(got.body()).as("seed %d step %d id %d", seed, i, id).isEqualTo(want.body());
          }
        }
      }
      assertThat(c.evictions()).as("the test must evict").isPositive();
      assertThat(answered).as("and still answer").isGreaterThan(1_000);
      assertThat(c.stats().bytes()).isLessThanOrEqualTo(c.capacityBytes());
    }
  }

  /** Readers racing writers (and evictions) never see a torn or mismatched body. */
  @Test
  void lockFreeReadsNeverSeeATornDocument() throws Exception {
    try (OffHeapDocCache c = new OffHeapDocCache(1 << 20)) {
      AtomicBoolean stop = new AtomicBoolean();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      AtomicLong reads = new AtomicLong();
      Thread writer =
          new Thread(
              () -> {
                Random rnd = new Random(1);
                long seq = 0;
                while (!stop.get()) {
                  long id = rnd.nextInt(2_000);
                  c.set(id, ++seq, pattern(id, seq, 16 + rnd.nextInt(2_000)));
                }
              });
      Thread reader =
          new Thread(
              () -> {
                Random rnd = new Random(2);
                ByteBuf out = PooledByteBufAllocator.DEFAULT.directBuffer(4096);
                try {
                  // Every other read copies a part: the middle half of the body, whose length
                  // the part's last call saw (a torn first look is asked again).
                  int[] seen = new int[1];
                  DocCache.Part middle =
                      (body, at, length) -> {
                        seen[0] = length;
                        return (long) (length / 4) << 32 | (length / 2);
                      };
                  while (!stop.get()) {
                    long id = rnd.nextInt(2_000);
                    out.clear();
                    boolean part = rnd.nextBoolean();
                    long s = part ? c.copyPartIfLocal(id, middle, out) : c.copyIfLocal(id, out);
                    if (s >= 0) {
                      byte[] got = new byte[out.readableBytes()];
                      out.getBytes(0, got);
                      byte[] want =
                          part
                              ? Arrays.copyOfRange(
                                  pattern(id, s, seen[0]), seen[0] / 4, seen[0] / 4 + seen[0] / 2)
                              : pattern(id, s, got.length);
                      assertThat(got).as("id %d seq %d part %s", id, s, part).isEqualTo(want);
                      reads.incrementAndGet();
                    }
                  }
                } catch (Throwable t) {
                  failure.compareAndSet(null, t);
                } finally {
                  out.release();
                }
              });
      writer.start();
      reader.start();
      long until = System.nanoTime() + 1_000_000_000L;
      while (System.nanoTime() < until && failure.get() == null) {
        Thread.sleep(20);
      }
      stop.set(true);
      writer.join();
      reader.join();
      if (failure.get() != null) {
        throw new AssertionError(failure.get());
      }
      assertThat(reads.get()).isPositive();
      assertThat(c.evictions()).isPositive();
    }
  }

  /** Bytes that name their id and sequence throughout, so a torn or misplaced copy shows. */
  private static byte[] pattern(long id, long seq, int length) {
    byte[] b = new byte[length];
    for (int i = 0; i < length; i++) {
      b[i] = (byte) (id * 31 + seq * 7 + i);
    }
    return b;
  }

  @Test
  void rejectsATooSmallBudget() {
    assertThatThrownBy(() -> new OffHeapDocCache(1024))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void sizeZeroHoldsNothing() {
    try (OffHeapDocCache off = new OffHeapDocCache(0)) {
      off.set(1, 1, body("a"));
      off.fill(2, 2, body("b"));
      off.setDeleted(3, 3);
      assertThat(off.get(1)).isNull();
      assertThat(off.get(2)).isNull();
      assertThat(off.get(3)).isNull();
      assertThat(off.size()).isZero();
      assertThat(off.stats().misses()).isEqualTo(3);
      assertThat(off.allocatedBytes()).isZero();
    }
  }
}
