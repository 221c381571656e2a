package io.docstore.service.torture;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.FaultInjectingFileSystem;
import io.docstore.io.TestSupport;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenarios 3 and 4: a full disk and failing fsyncs, injected through the file-system seam (a
 * tmpfs mount needs privileges CI does not have). Writes are refused with 503/507 and a reason,
 * reads keep working, nothing acknowledged is lost (checked after a simulated power loss too),
 * and writes resume once the fault is gone: after a restart for a failed fsync (sticky read-only).
 */
class TortureDiskTest {

  @TempDir Path dir;

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Test
  void diskFullRefusesWritesKeepsReadsAndLosesNothing() throws Exception {
    long seed = TestSupport.seed("TortureDiskTest.diskFull");
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    AckLedger ledger = new AckLedger();
    long verified = 0;
    long recovery;
    String resumed;
    SeamService s = SeamService.start(dir, fs);
    try {
      loadUntil(s, ledger, seed, 200);
      fs.setSpaceLimit(256 << 10);
      LoadClient load = new LoadClient(s.adminUrl(), ledger, seed + 1, 3, 0, 300, 2000, false).start();
      long deadline = System.nanoTime() + 60_000_000_000L;
      while (load.rejected() < 20 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      load.close();
      assertThat(load.rejected()).as("writes refused once the disk is full: %s", load.statuses()).isGreaterThanOrEqualTo(20);
      assertThat(load.statuses().keySet()).as("refusals are 503 or 507").allMatch(c -> c == 200 || c == 503 || c == 507);
      HttpResponse<String> refused = put(s, 999_999, "{\"x\":1}");
      assertThat(refused.statusCode()).isIn(503, 507);
      assertThat(refused.body()).as("the refusal says why").containsIgnoringCase("nothing acknowledged");
      verified += ledger.check(new HttpReader(s.readUrl()), false);
      assertThat(ledger.failures()).as("reads while the disk is full").isEmpty();

      fs.clearSpaceLimit();
      long t0 = System.nanoTime();
      if (put(s, 999_998, "{\"x\":2}").statusCode() == 200) {
        resumed = "without_restart";
        recovery = (System.nanoTime() - t0) / 1_000_000;
      } else {
        // The queue refuses writes after a failed block write until it is reopened.
        s.stop();
        fs.crash();
        s = SeamService.start(dir, fs);
        assertThat(put(s, 999_998, "{\"x\":3}").statusCode()).isEqualTo(200);
        recovery = (System.nanoTime() - t0) / 1_000_000;
        resumed = "after_restart";
      }
      verified += ledger.check(new HttpReader(s.readUrl()));
      loadUntil(s, ledger, seed + 2, 100);
      verified += ledger.check(new HttpReader(s.readUrl()));
    } finally {
      s.stop();
    }
    new Verdict("disk-full (seam)", 1, 1, ledger.acknowledged(), verified, ledger.failures().size(), recovery,
        "writes_resume=" + resumed + " seed=" + seed).print();
    assertThat(ledger.failures()).isEmpty();
  }

  @Test
  void fsyncFailureGoesReadOnlyUntilRestartAndLosesNothing() throws Exception {
    long seed = TestSupport.seed("TortureDiskTest.fsync");
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    AckLedger ledger = new AckLedger();
    long verified = 0;
    long recovery;
    SeamService s = SeamService.start(dir, fs);
    try {
      loadUntil(s, ledger, seed, 200);
      fs.failAfter(FaultInjectingFileSystem.Op.FORCE, 3);
      LoadClient load = new LoadClient(s.adminUrl(), ledger, seed + 1, 3, 0, 300, 2000, false).start();
      long deadline = System.nanoTime() + 60_000_000_000L;
      while (load.rejected() < 20 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      load.close();
      assertThat(load.rejected()).as("writes refused after the fsync failure: %s", load.statuses()).isGreaterThanOrEqualTo(20);
      fs.clearFaults();
      HttpResponse<String> sticky = put(s, 999_999, "{\"x\":1}");
      assertThat(sticky.statusCode()).as("read-only until restart").isIn(503, 507);
      assertThat(sticky.body()).containsIgnoringCase("fsync");
      verified += ledger.check(new HttpReader(s.readUrl()), false);
      assertThat(ledger.failures()).as("reads after the fsync failure").isEmpty();
      long t0 = System.nanoTime();
      s.stop();
      fs.crash(); // drop everything that was never made durable
      s = SeamService.start(dir, fs);
      recovery = (System.nanoTime() - t0) / 1_000_000;
      verified += ledger.check(new HttpReader(s.readUrl()));
      assertThat(ledger.failures()).as("after restart").isEmpty();
      loadUntil(s, ledger, seed + 2, 100);
      verified += ledger.check(new HttpReader(s.readUrl()));
    } finally {
      s.stop();
    }
    new Verdict("fsync-failure (seam)", 1, 1, ledger.acknowledged(), verified, ledger.failures().size(), recovery,
        "seed=" + seed).print();
    assertThat(ledger.failures()).isEmpty();
  }

  private static void loadUntil(SeamService s, AckLedger ledger, long seed, long acks) throws InterruptedException {
    long before = ledger.acknowledged();
    try (LoadClient load = new LoadClient(s.adminUrl(), ledger, seed, 2, 0, 300, 2000, false).start()) {
      long deadline = System.nanoTime() + 60_000_000_000L;
      while (ledger.acknowledged() - before < acks && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
    }
    assertThat(ledger.acknowledged() - before).isGreaterThanOrEqualTo(acks);
  }

  private HttpResponse<String> put(SeamService s, long id, String json) throws IOException, InterruptedException {
    return http.send(HttpRequest.newBuilder(URI.create(s.adminUrl() + "/docs/" + id)).timeout(Duration.ofSeconds(30))
        .PUT(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
  }
}
