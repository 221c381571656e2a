package io.docstore.bench.engines;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.io.TestSupport;
import io.docstore.service.gc.GcOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every engine that can run in the test JVM against a HashMap model: random puts (overwrites
 * included) and deletes in batches, reads of every key and of absent keys, close, reopen, read
 * again. Indeed lsmtree needs its own class path and is covered through real engine JVMs in
 * BenchMainTest.
 */
class EnginesTest {

  @TempDir Path dir;

  /** Opens an engine on {@link #settings()}. */
  @FunctionalInterface
  private interface Opener {
    Engine open() throws IOException;
  }

  private EngineSettings settings() {
    return new EngineSettings(dir, 8 << 20, 1 << 20, 4096);
  }

  @ParameterizedTest
  @ValueSource(strings = {"docstore", "rocksdb", "rocksdb-blob", "leveldb", "lmdb"})
  void writesReadsBackAndSurvivesReopen(String name) throws IOException {
    writesReadsBackAndSurvivesReopen(name, () -> Engines.open(name, settings()));
  }

  /**
   * docstore's store as the churn workload opens it, its space reclamation on and off: the same
   * model; and an expiry per write, which it enforces itself.
   */
  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void theStoreWritesReadsBackAndExpires(boolean gc) throws IOException {
    GcOptions options = GcOptions.defaults().withEnabled(gc);
    writesReadsBackAndSurvivesReopen("store", () -> Engines.openStore(settings(), options));
    try (Engine e = Engines.openStore(settings(), options)) {
      assertThat(e.expires()).isTrue();
      assertThat(e.spaceStats())
          .containsKeys("space_amplification", "bytes_relocated", "bytes_stored");
      long now = System.currentTimeMillis();
      e.put(key(5000), new byte[] {1}, now - 1);
      e.put(key(5001), new byte[] {2}, now + 3_600_000);
      e.flush();
      assertThat(e.get(key(5000))).as("expired").isNull();
      assertThat(e.get(key(5001))).containsExactly(2);
    }
    try (Engine e =
        Engines.open("rocksdb", new EngineSettings(dir.resolve("peer"), 8 << 20, 1 << 20, 4096))) {
      assertThat(e.expires()).isFalse();
      assertThat(e.spaceStats()).isEmpty();
      assertThatThrownBy(() -> e.put(key(1), new byte[1], 1))
          .isInstanceOf(UnsupportedOperationException.class);
    }
  }

  private void writesReadsBackAndSurvivesReopen(String name, Opener opener) throws IOException {
    long seed = TestSupport.seed("EnginesTest." + name);
    Random random = new Random(seed);
    Map<Long, byte[]> model = new HashMap<>();
    try (Engine e = opener.open()) {
      assertThat(e.settings()).isNotBlank();
      for (int i = 0; i < 3000; i++) {
        long k = random.nextInt(2000);
        if (random.nextInt(10) == 0) {
          e.delete(key(k));
          model.remove(k);
        } else {
          byte[] v = new byte[random.nextBoolean() ? 96 : 300 + random.nextInt(800)];
          random.nextBytes(v);
          e.put(key(k), v);
          model.put(k, v);
        }
        if (i % 100 == 99) {
          e.flush();
        }
      }
      e.flush();
      verify(e, model);
    }
    try (Engine e = opener.open()) {
      verify(e, model);
    }
  }

  /**
   * The mixed workload's use: two threads each put and flush one key at a time while reading, on
   * keys of their own and on keys both write; afterwards each own key holds its thread's last value
   * and each shared key one of the two threads' last values, also after reopening.
   */
  @ParameterizedTest
  @ValueSource(strings = {"docstore", "rocksdb", "rocksdb-blob", "leveldb", "lmdb"})
  void concurrentWritersEachPutAndFlush(String name) throws Exception {
    EngineSettings settings = new EngineSettings(dir, 8 << 20, 1 << 20, 4096);
    int threads = 2;
    int own = 200;
    int shared = 20;
    int rounds = 5;
    java.util.concurrent.atomic.AtomicInteger wrongReads =
        new java.util.concurrent.atomic.AtomicInteger();
    try (Engine e = Engines.open(name, settings)) {
      java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(threads);
      java.util.List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
      java.util.concurrent.ExecutorService pool =
          java.util.concurrent.Executors.newFixedThreadPool(threads);
      try {
        for (int t = 0; t < threads; t++) {
          int thread = t;
          done.add(
              pool.submit(
                  () -> {
                    start.await();
                    for (int r = 0; r < rounds; r++) {
                      for (int i = 0; i < own + shared; i++) {
                        long k = i < own ? 1000L * (thread + 1) + i : i - own;
                        e.put(key(k), value(k, thread, r));
                        e.flush();
                        byte[] back = e.get(key(k));
                        if (back == null
                            || (i < own && !java.util.Arrays.equals(back, value(k, thread, r)))) {
                          wrongReads.incrementAndGet();
                        }
                      }
                    }
                    return null;
                  }));
        }
        for (java.util.concurrent.Future<?> f : done) {
          f.get();
        }
      } finally {
        pool.shutdownNow();
      }
      assertThat(wrongReads.get()).as("reads after the thread's own flush").isZero();
      verifyConcurrent(e, threads, own, shared, rounds);
    }
    try (Engine e = Engines.open(name, settings)) {
      verifyConcurrent(e, threads, own, shared, rounds);
    }
  }

  private static void verifyConcurrent(Engine e, int threads, int own, int shared, int rounds)
      throws IOException {
    for (int t = 0; t < threads; t++) {
      for (int i = 0; i < own; i++) {
        long k = 1000L * (t + 1) + i;
        assertThat(e.get(key(k)))
            .as("own key %d of thread %d", k, t)
            .isEqualTo(value(k, t, rounds - 1));
      }
    }
    for (long k = 0; k < shared; k++) {
      byte[] v = e.get(key(k));
      assertThat(v).as("shared key %d", k).isNotNull();
      boolean oneOfTheLast = false;
      for (int t = 0; t < threads; t++) {
        oneOfTheLast |= java.util.Arrays.equals(v, value(k, t, rounds - 1));
      }
      assertThat(oneOfTheLast).as("shared key %d holds a thread's last value", k).isTrue();
    }
  }

  /** 100 to 1,099 bytes determined by key, thread and round. */
  private static byte[] value(long k, int thread, int round) {
    Random r = new Random(k * 1_000_003 + thread * 101 + round);
    byte[] v = new byte[100 + r.nextInt(1000)];
    r.nextBytes(v);
    return v;
  }

  @Test
  void rejectsUnknownEngines() {
    assertThatThrownBy(() -> Engines.open("nope", new EngineSettings(dir, 1, 1, 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("nope");
    assertThat(Engines.needsIsolatedClassPath("lsmtree")).isTrue();
    assertThat(Engines.needsIsolatedClassPath("rocksdb")).isFalse();
  }

  private static void verify(Engine e, Map<Long, byte[]> model) throws IOException {
    for (long k = 0; k < 2100; k++) {
      byte[] expected = model.get(k);
      if (expected == null) {
        assertThat(e.get(key(k))).as("absent key %d", k).isNull();
      } else {
        assertThat(e.get(key(k))).as("key %d", k).isEqualTo(expected);
      }
    }
  }

  private static byte[] key(long k) {
    return java.nio.ByteBuffer.allocate(8).putLong(k).array();
  }
}
