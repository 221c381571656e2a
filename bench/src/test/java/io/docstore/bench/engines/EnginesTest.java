package io.docstore.bench.engines;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.io.TestSupport;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Every engine that can run in the test JVM against a HashMap model: random puts (overwrites
 * included) in batches, reads of every key and of absent keys, close, reopen, read again. Indeed
 * lsmtree needs its own class path and is covered through real engine JVMs in BenchMainTest.
 */
class EnginesTest {

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"docstore", "rocksdb", "rocksdb-blob", "leveldb", "lmdb"})
  void writesReadsBackAndSurvivesReopen(String name) throws IOException {
    long seed = TestSupport.seed("EnginesTest." + name);
    Random random = new Random(seed);
    EngineSettings settings = new EngineSettings(dir, 8 << 20, 1 << 20, 4096);
    Map<Long, byte[]> model = new HashMap<>();
    try (Engine e = Engines.open(name, settings)) {
      assertThat(e.settings()).isNotBlank();
      for (int i = 0; i < 3000; i++) {
        long k = random.nextInt(2000);
        byte[] v = new byte[random.nextBoolean() ? 96 : 300 + random.nextInt(800)];
        random.nextBytes(v);
        e.put(key(k), v);
        model.put(k, v);
        if (i % 100 == 99) {
          e.flush();
        }
      }
      e.flush();
      verify(e, model);
    }
    try (Engine e = Engines.open(name, settings)) {
      verify(e, model);
    }
  }

  @Test
  void rejectsUnknownEngines() {
    assertThatThrownBy(() -> Engines.open("nope", new EngineSettings(dir, 1, 1, 1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nope");
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
