package io.docstore.service.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.FileSystem;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link PullLoop}'s rounds and pull figures, with {@code false} and {@code true} standing in for
 * the rsync binary (a pull that fails, one that copies nothing), over an empty copy.
 */
class PullLoopTest {

  @TempDir Path tmp;

  private record Running(
      PullLoop loop, Timer timer, ReplicaIngester ingester, Freshness freshness) {}

  private Running start(String rsyncBinary) throws Exception {
    ReplicaOptions o =
        ReplicaOptions.builder("rsync://127.0.0.1:1/none/", tmp.resolve("r"))
            .pullInterval(Duration.ofMillis(10))
            .rsyncTimeout(Duration.ofSeconds(1))
            .rsyncBinary(rsyncBinary)
            .cacheBytes(0)
            .build();
    Path queueDir = Files.createDirectories(tmp.resolve("r/queue"));
    RsyncPuller puller = new RsyncPuller(FileSystem.real(), rsyncBinary, o.source, queueDir, 1);
    ReplicaCheckpoint checkpoint =
        new ReplicaCheckpoint(
            FileSystem.real(), tmp.resolve("r/replica.point"), o.checkpointInterval);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ReplicaIngester ingester =
        new ReplicaIngester(
            FileSystem.real(),
            queueDir,
            o,
            checkpoint,
            ReplicaMeters.recordLag(registry),
            ReplicaMeters.divergences(registry));
    Timer timer = ReplicaMeters.pullTimer(registry);
    Freshness freshness = new Freshness(System::currentTimeMillis, Duration.ofMillis(300), null);
    PullLoop loop = new PullLoop(o, puller, ingester, checkpoint, freshness, timer);
    loop.start();
    return new Running(loop, timer, ingester, freshness);
  }

  @Test
  void aFailedPullIsCountedAndTheNextRoundTriesAgain() throws Exception {
    Running r = start("false");
    try {
      await(() -> r.loop().pullFailures() >= 3);
      assertThat(r.loop().lastPullError()).startsWith("rsync exit 1");
      await(() -> r.freshness().lagMillis() > 300);
      assertThat(r.freshness().notReady()).as("never current").isEqualTo("catching up");
      assertThat(r.freshness().sinceLastSuccessfulPullMillis()).isGreaterThan(300);
    } finally {
      stop(r);
    }
    assertThat(r.loop().pulls()).isEqualTo(r.loop().pullFailures());
    assertThat(r.timer().count()).as("every pull timed").isEqualTo(r.loop().pulls());
  }

  @Test
  void aPullThatSucceedsLeavesNoErrorAndStopEndsTheRounds() throws Exception {
    Running r = start("true");
    try {
      await(() -> r.loop().pulls() >= 3);
      assertThat(r.loop().lastPullError()).isNull();
      assertThat(r.freshness().notReady())
          .as("a primary without a manifest has published nothing to apply")
          .isNull();
      assertThat(r.freshness().lagMillis()).isLessThan(300);
      assertThat(r.loop().pullFailures()).isZero();
    } finally {
      stop(r);
    }
    long pulls = r.loop().pulls();
    Thread.sleep(50);
    assertThat(r.loop().pulls()).as("no round after stop").isEqualTo(pulls);
    assertThat(r.ingester().appliedThrough()).as("nothing to ingest").isZero();
  }

  private static void stop(Running r) throws Exception {
    long t0 = System.nanoTime();
    r.loop().stop();
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0))
        .as("stop waits for one round at most")
        .isLessThan(5000);
    r.ingester().close();
  }

  private static void await(BooleanSupplier done) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!done.getAsBoolean()) {
      assertThat(System.nanoTime()).as("timed out").isLessThan(deadline);
      Thread.sleep(10);
    }
  }
}
