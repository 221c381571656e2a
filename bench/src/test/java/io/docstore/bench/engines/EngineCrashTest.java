package io.docstore.bench.engines;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.TestSupport;
import java.io.BufferedReader;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The shared durability contract of {@link Engine}, tested the way it is stated: a child JVM
 * ({@link CrashWriter}) puts and flushes, then is killed with SIGKILL without closing its engine;
 * the engine reopened on the same directory must return every flushed value. Nothing is fsynced by
 * the contract, so this holds only because each engine's flush hands its batch to the OS (a crash
 * of the machine is not tested). Indeed lsmtree needs its own class path and is not covered (see
 * {@link LsmtreeEngine}).
 */
class EngineCrashTest {

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"docstore", "rocksdb", "rocksdb-blob", "leveldb", "lmdb"})
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void everythingFlushedSurvivesAKilledProcess(String name) throws Exception {
    int n = 1250;
    Process p =
        TestSupport.startJvm(
            CrashWriter.class, List.of(), name, dir.toString(), Integer.toString(n));
    boolean flushed = false;
    try (BufferedReader out = TestSupport.stdout(p)) {
      String line;
      while ((line = out.readLine()) != null) {
        if (line.equals("FLUSHED")) {
          flushed = true;
          break;
        }
      }
      TestSupport.kill9(p);
    } finally {
      p.destroyForcibly();
    }
    assertThat(flushed).as("the child reached FLUSHED (exit %s)", p.exitValue()).isTrue();
    try (Engine e = Engines.open(name, CrashWriter.settings(dir))) {
      int missing = 0;
      for (int i = 0; i < n; i++) {
        byte[] v = e.get(CrashWriter.key(i));
        if (v == null) {
          missing++;
        } else {
          assertThat(v).as("key %d", i).isEqualTo(CrashWriter.value(i));
        }
      }
      assertThat(missing).as("flushed keys lost by %s after a process crash", name).isZero();
    }
  }
}
