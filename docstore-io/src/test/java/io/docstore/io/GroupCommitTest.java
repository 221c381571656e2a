package io.docstore.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class GroupCommitTest {

  @Test
  void alwaysMakesThePositionDurableBeforeReturning() throws IOException {
    AtomicLong written = new AtomicLong();
    AtomicLong forced = new AtomicLong();
    try (GroupCommit gc = new GroupCommit("t", SyncPolicy.ALWAYS, written::get, () -> forced.set(written.get()), 0)) {
      written.set(10);
      gc.awaitDurable(10);
      assertThat(forced.get()).isEqualTo(10);
      assertThat(gc.durablePosition()).isEqualTo(10);
    }
  }

  @Test
  void concurrentWritersShareFsyncs() throws Exception {
    AtomicLong written = new AtomicLong();
    AtomicInteger forces = new AtomicInteger();
    int threads = 8;
    int perThread = 200;
    try (GroupCommit gc = new GroupCommit("t", SyncPolicy.ALWAYS, written::get, () -> {
      forces.incrementAndGet();
      try {
        Thread.sleep(1); // a slow device: writers pile up behind the leader
      } catch (InterruptedException e) {
        throw new IOException(e);
      }
    }, 0)) {
      List<Thread> ts = new ArrayList<>();
      CountDownLatch start = new CountDownLatch(1);
      for (int t = 0; t < threads; t++) {
        Thread th = new Thread(() -> {
          try {
            start.await();
            for (int i = 0; i < perThread; i++) {
              long pos = written.incrementAndGet();
              gc.awaitDurable(pos);
              assertThat(gc.durablePosition()).isGreaterThanOrEqualTo(pos);
            }
          } catch (Exception e) {
            throw new AssertionError(e);
          }
        });
        th.start();
        ts.add(th);
      }
      start.countDown();
      for (Thread th : ts) {
        th.join();
      }
    }
    assertThat(forces.get()).isLessThan(threads * perThread);
  }

  @Test
  void intervalWaitsForTheBackgroundSync() throws IOException {
    AtomicLong written = new AtomicLong();
    AtomicInteger forces = new AtomicInteger();
    try (GroupCommit gc = new GroupCommit("t", SyncPolicy.interval(5), written::get, forces::incrementAndGet, 0)) {
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
    try (GroupCommit gc = new GroupCommit("t", SyncPolicy.ALWAYS, written::get, () -> {
      if (calls.incrementAndGet() == 2) {
        throw new IOException("EIO");
      }
    }, 0)) {
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
    try (GroupCommit gc = new GroupCommit("t", SyncPolicy.NONE, () -> 5, () -> {
      throw new AssertionError("no fsync expected");
    }, 0)) {
      gc.awaitDurable(5);
    }
  }
}
