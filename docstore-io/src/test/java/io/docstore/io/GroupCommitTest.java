package io.docstore.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class GroupCommitTest {

  @Test
  void alwaysMakesThePositionDurableBeforeReturning() throws IOException {
    AtomicLong written = new AtomicLong();
    AtomicLong forced = new AtomicLong();
    try (GroupCommit gc =
        new GroupCommit("t", SyncPolicy.ALWAYS, written::get, () -> forced.set(written.get()), 0)) {
      written.set(10);
      gc.awaitDurable(10);
      assertThat(forced.get()).isEqualTo(10);
      assertThat(gc.durablePosition()).isEqualTo(10);
    }
  }

  /**
   * Eight writers each wait for 200 positions of their own under {@code always} with a slow force:
   * each must return only once its position is durable, and they must share fsyncs. The writers run
   * as futures whose {@code get} rethrows a failed assertion in the test thread.
   */
  @Test
  void concurrentWritersShareFsyncs() throws Exception {
    AtomicLong written = new AtomicLong();
    AtomicInteger forces = new AtomicInteger();
    int threads = 8;
    int perThread = 200;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try (GroupCommit gc =
        new GroupCommit(
            "t",
            SyncPolicy.ALWAYS,
            written::get,
            () -> {
              forces.incrementAndGet();
              try {
                Thread.sleep(1); // a slow device: writers pile up behind the leader
              } catch (InterruptedException e) {
                throw new IOException(e);
              }
            },
            0)) {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> writers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        writers.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < perThread; i++) {
                    long pos = written.incrementAndGet();
                    gc.awaitDurable(pos);
                    assertThat(gc.durablePosition())
                        .as("durable after awaitDurable(%d)", pos)
                        .isGreaterThanOrEqualTo(pos);
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> w : writers) {
        w.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(forces.get()).isLessThan(threads * perThread);
  }

  @Test
  void intervalWaitsForTheBackgroundSync() throws IOException {
    AtomicLong written = new AtomicLong();
    AtomicInteger forces = new AtomicInteger();
    try (GroupCommit gc =
        new GroupCommit("t", SyncPolicy.interval(5), written::get, forces::incrementAndGet, 0)) {
      written.set(3);
      gc.awaitDurable(3);
      assertThat(gc.durablePosition()).isGreaterThanOrEqualTo(3);
      assertThat(forces.get()).isPositive();
    }
  }

  @Test
  void failedFsyncIsStickyAndRefusesLaterAcks() throws IOException {
    AtomicLong written = new AtomicLong();
    AtomicInteger calls = new AtomicInteger();
    try (GroupCommit gc =
        new GroupCommit(
            "t",
            SyncPolicy.ALWAYS,
            written::get,
            () -> {
              if (calls.incrementAndGet() == 2) {
                throw new IOException("EIO");
              }
            },
            0)) {
      written.set(1);
      gc.awaitDurable(1);
      written.set(2);
      assertThatThrownBy(() -> gc.awaitDurable(2)).hasMessageContaining("fsync failed");
      written.set(3);
      assertThatThrownBy(() -> gc.awaitDurable(3)).hasMessageContaining("fsync failed");
      assertThat(gc.durablePosition()).isEqualTo(1);
    }
  }

  @Test
  void noneNeverWaits() throws IOException {
    try (GroupCommit gc =
        new GroupCommit(
            "t",
            SyncPolicy.NONE,
            () -> 5,
            () -> {
              throw new AssertionError("no fsync expected");
            },
            0)) {
      gc.awaitDurable(5);
    }
  }
}
