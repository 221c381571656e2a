package io.docstore.io.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.io.TestSupport;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class SlotCacheTest {

  private static final int SLOT = 64;

  /** Deterministic content of (key, version), length from 1 to SLOT. */
  private static byte[] content(long key, int version) {
    Random r = new Random(key * 31 + version);
    byte[] b = new byte[1 + r.nextInt(SLOT)];
    r.nextBytes(b);
    return b;
  }

  private static boolean put(SlotCache c, long key, byte[] b) {
    return c.put(key, b.length, (slab, off) -> slab.put(off, b));
  }

  private static byte[] get(SlotCache c, long key) {
    return c.get(
        key,
        (slab, off, len, arg) -> {
          byte[] out = new byte[len];
          slab.get(off, out);
          return out;
        },
        0);
  }

  @Test
  void behavesLikeAMapOfWhatItAdmitted() {
    long seed = TestSupport.seed("SlotCacheTest.behavesLikeAMapOfWhatItAdmitted");
    Random rnd = new Random(seed);
    for (int round = 0; round < 20 * TestSupport.scale(); round++) {
      int slots = 1 + rnd.nextInt(200);
      SlotCache c =
          new SlotCache((long) slots * SLOT + rnd.nextInt(SLOT), SLOT, ByteOrder.BIG_ENDIAN);
      int keySpace = 1 + rnd.nextInt(slots * 3);
      Map<Long, Integer> version = new HashMap<>();
      Set<Long> present =
          new HashSet<>(); // what the cache may hold: admitted and not invalidated since
      long admitted = 0;
      long invalidated = 0;
      for (int op = 0; op < 5_000; op++) {
        long key =
            rnd.nextInt(keySpace) * 0x9E3779B97F4A7C15L; // spread keys over the whole long range
        int v = version.getOrDefault(key, 0);
        int what = rnd.nextInt(10);
        if (what < 5) {
          byte[] got = get(c, key);
          if (got != null) {
            assertThat(present)
                .as("hit of a key never admitted or invalidated since")
                .contains(key);
            assertThat(got).as("bytes of key %d version %d", key, v).isEqualTo(content(key, v));
          } else if (present.contains(key)) {
            present.remove(key); // evicted
          }
        } else if (what < 9) {
          boolean wasThere = c.contains(key);
          if (put(c, key, content(key, v))) {
            if (!wasThere) {
              admitted++;
            }
            present.add(key);
            assertThat(c.contains(key)).isTrue();
          }
        } else {
          boolean wasThere = c.contains(key);
          c.invalidate(key);
          if (wasThere) {
            invalidated++;
          }
          version.put(key, v + 1);
          present.remove(key);
          assertThat(c.contains(key)).isFalse();
        }
        assertThat(c.bytesUsed()).isLessThanOrEqualTo(c.capacityBytes());
        assertThat(c.bytesUsed() / SLOT).isEqualTo(admitted - c.evictions() - invalidated);
      }
      assertThat(c.hits() + c.misses()).isPositive();
    }
  }

  @Test
  void fillsFreeSlotsThenAdmitsOnlyOnTheSecondMiss() {
    SlotCache c = new SlotCache(4 * SLOT, SLOT, ByteOrder.BIG_ENDIAN, 1);
    assertThat(c.slotCount()).isEqualTo(4);
    for (long k = 1; k <= 4; k++) {
      assertThat(put(c, k, content(k, 0))).isTrue();
    }
    assertThat(c.bytesUsed()).isEqualTo(4 * SLOT);
    assertThat(put(c, 5, content(5, 0)))
        .as("first miss of 5 in a full cache: only remembered")
        .isFalse();
    assertThat(c.rejections()).isEqualTo(1);
    assertThat(put(c, 5, content(5, 0))).as("second miss: admitted").isTrue();
    assertThat(c.evictions()).isEqualTo(1);
    assertThat(get(c, 5)).isEqualTo(content(5, 0));
  }

  @Test
  void aScanDoesNotFlushTheWorkingSet() {
    int slots = 256;
    SlotCache c = new SlotCache((long) slots * SLOT, SLOT, ByteOrder.BIG_ENDIAN, 1);
    List<Long> hot = new ArrayList<>();
    for (long k = 0; k < slots; k++) {
      long key = k * 7919;
      put(c, key, content(key, 0));
      hot.add(key);
    }
    for (long k = 1_000_000; k < 1_000_000 + 20L * slots; k++) {
      if (get(c, k) == null) {
        put(c, k, content(k, 0));
      }
    }
    for (long key : hot) {
      assertThat(get(c, key))
          .as("hot key %d after a scan of unseen keys", key)
          .isEqualTo(content(key, 0));
    }
    assertThat(c.evictions()).isZero();
  }

  @Test
  void clockKeepsReferencedSlots() {
    SlotCache c = new SlotCache(3 * SLOT, SLOT, ByteOrder.BIG_ENDIAN, 1);
    assertThat(c.slotCount()).isEqualTo(3);
    for (long k = 1; k <= 3; k++) {
      put(c, k, content(k, 0));
    }
    get(c, 1);
    get(c, 3);
    assertThat(put(c, 4, content(4, 0))).isFalse();
    assertThat(put(c, 4, content(4, 0))).isTrue();
    assertThat(c.contains(2)).as("the one slot without a reference bit").isFalse();
    assertThat(get(c, 1)).isEqualTo(content(1, 0));
    assertThat(get(c, 3)).isEqualTo(content(3, 0));
    assertThat(get(c, 4)).isEqualTo(content(4, 0));
  }

  @Test
  void longReaderAnswersAndMisses() {
    SlotCache c = new SlotCache(1 << 16, 4096, ByteOrder.LITTLE_ENDIAN);
    ByteBuffer page = ByteBuffer.allocateDirect(4096).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < 512; i++) {
      page.putLong(i * 8, i * 3L);
    }
    assertThat(c.put(42, page, 0, 4096)).isTrue();
    SlotCache.LongReader at = (slab, off, len, arg) -> slab.getLong(off + (int) arg * 8);
    assertThat(c.getLong(42, at, 100)).isEqualTo(300);
    assertThat(c.getLong(43, at, 100)).isEqualTo(SlotCache.MISS);
    assertThat(c.hits()).isEqualTo(1);
    assertThat(c.misses()).isEqualTo(1);
    c.clear();
    assertThat(c.getLong(42, at, 100)).isEqualTo(SlotCache.MISS);
    assertThat(c.bytesUsed()).isZero();
  }

  @Test
  void slotMemoryIsAllocatedAsSlotsAreFirstFilled() {
    java.lang.management.BufferPoolMXBean direct =
        java.lang.management.ManagementFactory.getPlatformMXBeans(
                java.lang.management.BufferPoolMXBean.class)
            .stream()
            .filter(b -> b.getName().equals("direct"))
            .findFirst()
            .orElseThrow();
    long before = direct.getMemoryUsed();
    SlotCache c = new SlotCache(256L << 20, 4096, ByteOrder.LITTLE_ENDIAN);
    assertThat(direct.getMemoryUsed() - before).as("an empty 256 MiB cache").isLessThan(1 << 20);
    ByteBuffer page = ByteBuffer.allocateDirect(4096);
    long afterEmpty = direct.getMemoryUsed();
    for (long k = 0; k < 3; k++) {
      c.put(k, page, 0, 4096);
    }
    // Three keys land in at most three stripes: one chunk of 256 pages (1 MiB) each.
    assertThat(direct.getMemoryUsed() - afterEmpty).isBetween(1L << 20, (3L << 20) + 4096);
    assertThat(c.capacityBytes()).isEqualTo(256L << 20);
  }

  @Test
  void rejectsValuesLargerThanASlot() {
    SlotCache c = new SlotCache(4 * SLOT, SLOT, ByteOrder.BIG_ENDIAN);
    assertThatThrownBy(() -> put(c, 1, new byte[SLOT + 1]))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new SlotCache(SLOT - 1, SLOT, ByteOrder.BIG_ENDIAN))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /**
   * Readers never see a slot's bytes for the wrong key, while writers fill, evict and invalidate
   * concurrently (each key's content is fixed, so any hit can be checked).
   */
  @Test
  void concurrentReadersSeeOnlyWholeValuesOfTheirKey() throws Exception {
    long seed = TestSupport.seed("SlotCacheTest.concurrentReadersSeeOnlyWholeValuesOfTheirKey");
    SlotCache c = new SlotCache(64L * SLOT, SLOT, ByteOrder.BIG_ENDIAN);
    int threads = 4;
    long millis = 1500L * TestSupport.scale();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicLong checkedHits = new AtomicLong();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> ts = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Random rnd = new Random(seed + t);
      boolean invalidates = t == 0;
      Thread th =
          new Thread(
              () -> {
                try {
                  start.await();
                  long end = System.currentTimeMillis() + millis;
                  while (System.currentTimeMillis() < end && failure.get() == null) {
                    long key = rnd.nextInt(200);
                    byte[] want = content(key, 0);
                    byte[] got = get(c, key);
                    if (got != null) {
                      if (!Arrays.equals(got, want)) {
                        throw new AssertionError(
                            "key " + key + ": read " + got.length + " bytes not its own");
                      }
                      checkedHits.incrementAndGet();
                    } else {
                      put(c, key, want);
                    }
                    long first =
                        c.getLong(key, (slab, off, len, arg) -> len == 0 ? 0 : slab.get(off), 0);
                    if (first != SlotCache.MISS && first != want[0]) {
                      throw new AssertionError(
                          "key " + key + ": first byte " + first + " not " + want[0]);
                    }
                    if (invalidates && rnd.nextInt(8) == 0) {
                      c.invalidate(rnd.nextInt(200));
                    }
                  }
                } catch (Throwable e) {
                  failure.compareAndSet(null, e);
                }
              });
      th.start();
      ts.add(th);
    }
    start.countDown();
    for (Thread th : ts) {
      th.join();
    }
    if (failure.get() != null) {
      throw new AssertionError(failure.get());
    }
    assertThat(checkedHits.get()).isPositive();
    assertThat(c.evictions()).isPositive();
  }
}
