package io.docstore.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.io.FaultInjectingFileSystem;
import io.docstore.io.FileSystem;
import io.docstore.io.InterceptingFileSystem;
import io.docstore.io.SyncPolicy;
import io.docstore.io.TestSupport;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Power-loss simulation through the file-system seam: while the index writes (and flushes and
 * compacts in the background) the {@link FaultInjectingFileSystem} crashes, dropping unsynced
 * bytes, undurable creates and renames. After each reopen every acknowledged write must be there.
 * Also: a full disk makes flushes fail cleanly and the index stays readable and recovers.
 */
class FaultInjectionCrashTest {

  @TempDir Path dir;

  @Test
  @Timeout(value = 15, unit = TimeUnit.MINUTES)
  void acknowledgedWritesSurvivePowerLoss() throws Exception {
    long seed = TestSupport.seed("FaultInjectionCrashTest");
    SplittableRandom rnd = new SplittableRandom(seed);
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    Map<Long, Long> acked = new HashMap<>();
    int rounds = 12 * TestSupport.scale();
    for (int round = 0; round < rounds; round++) {
      SyncPolicy policy = round % 2 == 0 ? SyncPolicy.ALWAYS : SyncPolicy.interval(5);
      // The process's view of the disk: dead from the power loss on, so its background threads
      // (flushes, compactions) cannot write after the simulated crash.
      AtomicBoolean dead = new AtomicBoolean();
      FileSystem process =
          new InterceptingFileSystem(
              fs,
              (op, p) -> {
                if (dead.get()) {
                  throw new IOException("process is dead (simulated crash): " + op + " " + p);
                }
              });
      IndexOptions opts =
          IndexOptions.builder()
              .fileSystem(process)
              .syncPolicy(policy)
              .memTableBytes(4 * 1024)
              .bloomMemoryBytes(32 * 1024)
              .build();
      LsmIndex index = LsmIndex.open(dir, opts);
      for (Map.Entry<Long, Long> e : acked.entrySet()) {
        long v = index.get(e.getKey());
        if (e.getValue() == LsmIndex.DELETED) {
          assertThat(v)
              .as("deleted id %d after crash %d, seed %d", e.getKey(), round, seed)
              .isIn(LsmIndex.DELETED, LsmIndex.ABSENT);
        } else {
          assertThat(v)
              .as("id %d after crash %d, seed %d", e.getKey(), round, seed)
              .isEqualTo(e.getValue());
        }
      }
      int writes = 200 + rnd.nextInt(1500);
      Map<Long, Long> pending = new HashMap<>();
      for (int i = 0; i < writes; i++) {
        long id = rnd.nextLong(5_000);
        if (rnd.nextInt(8) == 0) {
          index.delete(id);
          pending.put(id, LsmIndex.DELETED);
        } else {
          long v = rnd.nextLong(Long.MAX_VALUE);
          index.put(id, v);
          pending.put(id, v);
        }
        if (policy.mode() == SyncPolicy.Mode.ALWAYS) {
          acked.putAll(pending);
          pending.clear();
        } else if (rnd.nextInt(100) == 0) {
          index.sync();
          acked.putAll(pending);
          pending.clear();
        }
      }
      // Power loss while background flushes may be running: freeze the seam, drop unsynced state.
      dead.set(true);
      fs.crash();
      try {
        index.close();
      } catch (IOException expected) {
        // The old process is dead; its close cannot succeed.
      }
      // Writes that were not acknowledged may or may not have survived: forget them in the model.
      try (LsmIndex probe = LsmIndex.open(dir, opts(fs))) {
        for (Long id : pending.keySet()) {
          acked.remove(id);
          long v = probe.get(id);
          if (v != LsmIndex.ABSENT) {
            acked.put(id, v);
          }
        }
      }
    }
    assertThat(fs.crashes()).isEqualTo(rounds);
  }

  private static IndexOptions opts(FaultInjectingFileSystem fs) {
    return IndexOptions.builder()
        .fileSystem(fs)
        .syncPolicy(SyncPolicy.NONE)
        .memTableBytes(4 * 1024)
        .build();
  }

  @Test
  void fullDiskFailsFlushCleanlyAndRecovers() throws Exception {
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    IndexOptions opts =
        IndexOptions.builder()
            .fileSystem(fs)
            .syncPolicy(SyncPolicy.NONE)
            .memTableBytes(4 * 1024)
            .maxFrozenTables(1)
            .build();
    try (LsmIndex index = LsmIndex.open(dir, opts)) {
      for (long i = 0; i < 1000; i++) {
        index.put(i, i);
      }
      index.flush();
      fs.setSpaceLimit(20_000);
      assertThatThrownBy(
              () -> {
                for (long i = 1000; i < 5000; i++) {
                  index.put(i, i);
                }
              })
          .isInstanceOf(IOException.class);
      for (long i = 0; i < 1000; i++) {
        assertThat(index.get(i)).isEqualTo(i);
      }
      assertThat(index.stats().backgroundFailures()).isPositive();
      fs.clearSpaceLimit();
      index.flush();
      for (long i = 0; i < 1000; i++) {
        assertThat(index.get(i)).isEqualTo(i);
      }
    }
  }
}
