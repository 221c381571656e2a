package io.docstore.service.torture;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.FaultInjectingFileSystem;
import io.docstore.io.FileSystem;
import io.docstore.io.TestSupport;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scenarios 3 and 4: a full disk (a real 16 MiB tmpfs when this process may mount one, else the
 * file-system seam; {@code -Ddocstore.torture.disk=seam} forces the seam) and failing fsyncs
 * (seam). A full disk: writes get 507 with a reason, reads keep working, nothing acknowledged is
 * lost, and the first write after space is freed succeeds without a restart. A failed fsync: 503,
 * read-only until a restart (sticky, see docs/design/durability.md "Write errors").
 */
class TortureDiskTest {

  @TempDir Path dir;

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Test
  void diskFullRefusesWritesKeepsReadsAndResumesWithoutARestart() throws Exception {
    long seed = TestSupport.seed("TortureDiskTest.diskFull");
    Path mount =
        "seam".equals(System.getProperty("docstore.torture.disk"))
            ? null
            : tryMountTmpfs(dir.resolve("tmpfs"));
    try {
      diskFull(seed, mount);
    } finally {
      if (mount != null) {
        run("umount", "-l", mount.toString());
      }
    }
  }

  /**
   * With {@code mount} (a 16 MiB tmpfs): the store runs on real files and the disk is filled with a
   * ballast file, then freed by deleting it. Without: the seam's space limit.
   */
  private void diskFull(long seed, Path mount) throws Exception {
    String mode = mount != null ? "tmpfs 16m" : "seam";
    System.out.println(
        "TortureDiskTest.diskFull: "
            + (mount != null
                ? "a real 16 MiB tmpfs (mount permitted)"
                : "the fault-injecting seam (mounting a tmpfs is not permitted, or -Ddocstore.torture.disk=seam)"));
    FaultInjectingFileSystem seam = mount == null ? new FaultInjectingFileSystem() : null;
    FileSystem fs = mount != null ? FileSystem.real() : seam;
    Path data = mount != null ? mount.resolve("data") : dir;
    Path ballast = mount != null ? mount.resolve("ballast") : null;
    AckLedger ledger = new AckLedger();
    long verified = 0;
    long recovery;
    boolean resumed;
    SeamService s = SeamService.start(data, fs);
    try {
      loadUntil(s, ledger, seed, 200);
      if (mount != null) {
        fill(ballast);
      } else {
        seam.setSpaceLimit(256 << 10);
      }
      LoadClient load =
          new LoadClient(s.adminUrl(), ledger, seed + 1, 3, 0, 300, 2000, false).start();
      long deadline = System.nanoTime() + 60_000_000_000L;
      while (load.rejected() < 20 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      load.close();
      assertThat(load.rejected())
          .as("writes refused once the disk is full: %s", load.statuses())
          .isGreaterThanOrEqualTo(20);
      assertThat(load.statuses().keySet())
          .as("refusals are 507")
          .allMatch(c -> c == 200 || c == 507);
      // A refused write cuts its partial block back, which frees a few bytes: a small write may
      // still fit now and then, so probe until one is refused, and read that refusal's reason.
      HttpResponse<String> refused = null;
      for (int i = 0; i < 50 && (refused == null || refused.statusCode() != 507); i++) {
        refused = put(s, 999_000 + i, "{\"x\":1}");
        assertThat(refused.statusCode())
            .as("a write on the full disk: %s", refused.body())
            .isIn(200, 507);
      }
      assertThat(refused.statusCode())
          .as("one of 50 writes on the full disk is refused")
          .isEqualTo(507);
      assertThat(refused.body())
          .as("the refusal says why")
          .contains("disk full")
          .containsIgnoringCase("nothing acknowledged");
      verified += ledger.check(new HttpReader(s.readUrl()), false);
      assertThat(ledger.failures()).as("reads while the disk is full").isEmpty();

      if (mount != null) {
        Files.delete(ballast);
      } else {
        seam.clearSpaceLimit();
      }
      long t0 = System.nanoTime();
      HttpResponse<String> first = put(s, 999_998, "{\"x\":2}");
      recovery = (System.nanoTime() - t0) / 1_000_000;
      resumed = first.statusCode() == 200;
      assertThat(first.statusCode())
          .as("the first write after space is freed: %s", first.body())
          .isEqualTo(200);
      verified += ledger.check(new HttpReader(s.readUrl()));
      loadUntil(s, ledger, seed + 2, 100);
      verified += ledger.check(new HttpReader(s.readUrl()));
    } finally {
      s.stop();
    }
    // And after a restart (with the seam: a power loss first, dropping whatever was not durable).
    if (seam != null) {
      seam.crash();
    }
    s = SeamService.start(data, fs);
    try {
      verified += ledger.check(new HttpReader(s.readUrl()));
    } finally {
      s.stop();
    }
    Verdict.of(
            "disk-full (" + mode + ")",
            1,
            1,
            ledger,
            verified,
            recovery,
            "writes_resume="
                + resumed
                + " mode="
                + (mount != null ? "tmpfs" : "seam")
                + " seed="
                + seed)
        .print();
    assertThat(ledger.failures()).isEmpty();
  }

  /**
   * A disk that fills while the space reclamation runs (eager: a pass every 200 ms, no reserve, so
   * its relocations are the first to meet the full disk): its passes fail and are retried, writes
   * get 507, reads keep working and nothing acknowledged is lost or resurrected; once space is
   * freed, writes resume and the reclamation gives segments back again (seam).
   */
  @Test
  void diskFullDuringTheSpaceReclamation() throws Exception {
    long seed = TestSupport.seed("TortureDiskTest.diskFullDuringGc");
    FaultInjectingFileSystem seam = new FaultInjectingFileSystem();
    io.docstore.service.gc.GcOptions eager =
        new io.docstore.service.gc.GcOptions(true, 1.0, 0, Duration.ofMillis(200), 0, 0.05, 1024);
    AckLedger ledger = new AckLedger();
    long verified = 0;
    long recovery;
    SeamService s = SeamService.start(dir, seam, eager);
    try {
      // Overwrites of few IDs: garbage for the reclamation from the start.
      loadUntil(s, ledger, seed, 2000);
      long reclaimedBefore = reclaimed(s);
      seam.setSpaceLimit(64 << 10);
      LoadClient load =
          new LoadClient(s.adminUrl(), ledger, seed + 1, 3, 0, 50, 2000, false).start();
      long deadline = System.nanoTime() + 60_000_000_000L;
      while (load.rejected() < 20 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      load.close();
      assertThat(load.rejected()).as("writes refused on the full disk").isGreaterThanOrEqualTo(20);
      assertThat(load.statuses().keySet()).allMatch(c -> c == 200 || c == 507);
      Thread.sleep(600); // a few reclamation passes meet the full disk
      verified += ledger.check(new HttpReader(s.readUrl()), false);
      assertThat(ledger.failures()).as("reads while the disk is full").isEmpty();

      seam.clearSpaceLimit();
      long t0 = System.nanoTime();
      HttpResponse<String> first = put(s, 999_998, "{\"x\":2}");
      recovery = (System.nanoTime() - t0) / 1_000_000;
      assertThat(first.statusCode()).as("the first write after space is freed").isEqualTo(200);
      loadUntil(s, ledger, seed + 2, 1000);
      long until = System.nanoTime() + 30_000_000_000L;
      while (reclaimed(s) <= reclaimedBefore && System.nanoTime() < until) {
        Thread.sleep(50);
      }
      assertThat(reclaimed(s))
          .as("the reclamation goes on once space is freed")
          .isGreaterThan(reclaimedBefore);
      verified += ledger.check(new HttpReader(s.readUrl()));
    } finally {
      s.stop();
    }
    seam.crash(); // a power loss first: whatever was not durable goes
    s = SeamService.start(dir, seam, eager);
    try {
      verified += ledger.check(new HttpReader(s.readUrl()));
    } finally {
      s.stop();
    }
    Verdict.of("disk-full-during-gc (seam)", 1, 1, ledger, verified, recovery, "seed=" + seed)
        .print();
    assertThat(ledger.failures()).isEmpty();
  }

  /**
   * Mounts a 16 MiB tmpfs at {@code at} if this process may (root, and the mount succeeds); else
   * null.
   */
  private static Path tryMountTmpfs(Path at) {
    try {
      if (!"root".equals(System.getProperty("user.name"))) {
        return null;
      }
      Files.createDirectories(at);
      return run("mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", at.toString()) ? at : null;
    } catch (IOException e) {
      return null;
    }
  }

  private static boolean run(String... cmd) {
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String out =
          new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      boolean ok = p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS) && p.exitValue() == 0;
      if (!ok) {
        System.out.println(String.join(" ", cmd) + ": " + out.strip());
      }
      return ok;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Writes {@code file} until the file system is full. */
  private static void fill(Path file) throws IOException {
    byte[] chunk = new byte[64 << 10];
    try (java.io.OutputStream out = Files.newOutputStream(file)) {
      while (true) {
        out.write(chunk);
      }
    } catch (IOException full) {
      if (!io.docstore.io.NoSpaceException.isNoSpace(full)) {
        throw full;
      }
    }
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
      LoadClient load =
          new LoadClient(s.adminUrl(), ledger, seed + 1, 3, 0, 300, 2000, false).start();
      long deadline = System.nanoTime() + 60_000_000_000L;
      while (load.rejected() < 20 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      load.close();
      assertThat(load.rejected())
          .as("writes refused after the fsync failure: %s", load.statuses())
          .isGreaterThanOrEqualTo(20);
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
    Verdict.of("fsync-failure (seam)", 1, 1, ledger, verified, recovery, "seed=" + seed).print();
    assertThat(ledger.failures()).isEmpty();
  }

  /** Segments the store's space reclamation replaced by hollow ones since it opened. */
  private static long reclaimed(SeamService s) {
    return ((Number) s.store.reclamation().stats().get("segmentsReclaimed")).longValue();
  }

  private static void loadUntil(SeamService s, AckLedger ledger, long seed, long acks)
      throws InterruptedException {
    long before = ledger.acknowledged();
    try (LoadClient load =
        new LoadClient(s.adminUrl(), ledger, seed, 2, 0, 300, 2000, false).start()) {
      long deadline = System.nanoTime() + 60_000_000_000L;
      while (ledger.acknowledged() - before < acks && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
    }
    assertThat(ledger.acknowledged() - before).isGreaterThanOrEqualTo(acks);
  }

  private HttpResponse<String> put(SeamService s, long id, String json)
      throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create(s.adminUrl() + "/docs/" + id))
            .timeout(Duration.ofSeconds(30))
            .PUT(HttpRequest.BodyPublishers.ofString(json))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
