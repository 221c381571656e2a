package io.docstore.service.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.queue.replication.ReplicationManifest;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * {@link Freshness} and {@link PullFailureLog} on a clock of their own: the lag, readiness and the
 * rate-limited failure lines.
 */
class ReplicaFreshnessTest {

  private final AtomicLong now = new AtomicLong(1_000_000);

  private static ReplicationManifest manifest(long lastSequence, long publishedAt) {
    return new ReplicationManifest(1, 1, 44 + 100, lastSequence, 1, 7, publishedAt);
  }

  @Test
  void theLagGrowsWhilePullsFailAndReadinessFollowsTheBound() {
    Freshness f = new Freshness(now::get, Duration.ofSeconds(10), null);
    assertThat(f.notReady()).as("never current").isEqualTo("catching up");
    now.addAndGet(3_000);
    assertThat(f.lagMillis()).as("counted from the start").isEqualTo(3_000);

    long pull = now.get();
    f.pulled(pull);
    f.claim(pull, manifest(500, pull - 40));
    f.applied(499);
    assertThat(f.notReady()).as("one sequence short of the manifest").isEqualTo("catching up");
    now.addAndGet(200);
    f.applied(500);
    assertThat(f.notReady()).isNull();
    assertThat(f.lagMillis()).as("current as of the pull's start").isEqualTo(200);
    assertThat(f.currentAsOf()).isEqualTo(pull);

    // Pulls fail from here on: nothing is claimed, the lag grows one second per second.
    now.addAndGet(9_800);
    assertThat(f.lagMillis()).isEqualTo(10_000);
    assertThat(f.notReady()).isNull();
    now.addAndGet(1);
    assertThat(f.notReady()).isEqualTo("stale");
    assertThat(f.sinceLastSuccessfulPullMillis()).isEqualTo(10_001);

    // A pull succeeds and its manifest is applied: ready again.
    long again = now.get();
    f.pulled(again);
    f.claim(again, manifest(900, again - 10));
    f.applied(900);
    assertThat(f.notReady()).isNull();
    assertThat(f.lagMillis()).isZero();
  }

  @Test
  void atStartTheManifestOnDiskCountsFromItsPublicationOnceApplied() {
    long published = now.get() - 30_000; // the replica was down for half a minute
    Freshness f = new Freshness(now::get, Duration.ofSeconds(10), manifest(500, published));
    f.applied(400);
    assertThat(f.notReady()).isEqualTo("catching up");
    f.applied(500);
    assertThat(f.lagMillis()).isEqualTo(30_000);
    assertThat(f.notReady()).isEqualTo("stale");
  }

  @Test
  void repeatedPullFailuresAreLoggedOnceThenSummarisedEvery30Seconds() {
    PullFailureLog log = new PullFailureLog("rsync://primary/docstore/", 200);
    assertThat(log.succeeded(0)).as("nothing to say while pulls succeed").isNull();
    String first = log.failed(0, "rsync exit 10: connection refused", 42, 300);
    assertThat(first)
        .contains("pulls from rsync://primary/docstore/ fail: rsync exit 10: connection refused")
        .contains("reads keep being served from the local copy (applied through sequence 42)");
    int lines = 0;
    for (long t = 200; t < 60_000; t += 200) {
      if (log.failed(t, "rsync exit 10: connection refused", 42, t) != null) {
        lines++;
      }
    }
    assertThat(lines).as("one summary per 30 s over the next minute").isEqualTo(1);
    assertThat(log.failed(60_000, "rsync exit 10: connection refused", 42, 60_000))
        .contains("still fail after 60.0 s")
        .contains("150 more failures since the last report, 301 in all")
        .contains("lag 60.0 s");
    assertThat(log.succeeded(60_200)).contains("succeed again after 301 failures over 60.2 s");
    assertThat(log.failed(70_000, "rsync exit 30: timeout", 42, 100))
        .as("a new run of failures is reported at once")
        .contains("fail: rsync exit 30");
  }
}
