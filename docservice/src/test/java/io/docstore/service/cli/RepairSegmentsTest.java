package io.docstore.service.cli;

import static io.docstore.service.testing.DamagedStore.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.queue.QueueRecord;
import io.docstore.queue.format.SegmentFileName;
import io.docstore.service.DocStore;
import io.docstore.service.replica.RsyncDaemon;
import io.docstore.service.store.SalvageRebuild;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code docstore repair-segments} over real damage inside a sealed segment: a good copy (a second
 * directory holding the queue as it was before the damage, or the same served by a real rsync
 * daemon) replaces the damaged file and nothing else, {@code verify} is then clean and every
 * document reads back; a copy that is damaged too, another segment or another store's segment is
 * refused and the damaged file left exactly as it was; a running store's directory is refused.
 */
class RepairSegmentsTest {

  @TempDir Path tmp;

  @Test
  void repairFromALocalCopyMakesVerifyCleanAndEveryDocumentReadBack() throws Exception {
    Path dir = tmp.resolve("data");
    write(dir, 0);
    Path peer = tmp.resolve("peer");
    copyTree(dir, peer);
    List<QueueRecord> records = records(dir);
    Map<Long, QueueRecord> newest = newest(records);
    Path segment = damagedSegment(dir, records);
    flipMiddle(segment);
    assertThat(run("verify", dir.toString()).exit()).isEqualTo(1);
    Map<Path, Object> inodes = inodes(dir.resolve("queue"));

    Run r = run("repair-segments", "--data", dir.toString(), "--from", peer.toString());
    assertThat(r.exit()).as(r.out() + r.err()).isZero();
    assertThat(r.out())
        .contains(segment.getFileName() + ": damaged")
        .contains(segment.getFileName() + ": repaired")
        .contains("1 damaged sealed segment(s), 1 repaired, 0 not");

    Run v = run("verify", dir.toString());
    assertThat(v.exit()).as(v.out()).isZero();
    assertThat(Files.readAllBytes(segment))
        .isEqualTo(Files.readAllBytes(peer.resolve("queue").resolve(segment.getFileName())));
    Map<Path, Object> after = inodes(dir.resolve("queue"));
    for (var e : inodes.entrySet()) {
      if (e.getKey().equals(segment)) {
        assertThat(after.get(e.getKey()))
            .as("the damaged file was replaced")
            .isNotEqualTo(e.getValue());
      } else {
        assertThat(after.get(e.getKey())).as("untouched: %s", e.getKey()).isEqualTo(e.getValue());
      }
    }
    assertThat(after.keySet()).as("no temp file left").isEqualTo(inodes.keySet());
    assertAllExact(dir, newest);
    assertThat(run("repair-segments", "--data", dir.toString(), "--from", peer.toString()).out())
        .contains("nothing to do");
  }

  @Test
  void repairThroughARealRsyncDaemonAfterARebuildThatSkippedTheDamage() throws Exception {
    Path dir = tmp.resolve("data");
    write(dir, 0);
    Path peer = tmp.resolve("peer");
    copyTree(dir, peer);
    List<QueueRecord> records = records(dir);
    Map<Long, QueueRecord> newest = newest(records);
    Path segment = damagedSegment(dir, records);
    flipMiddle(segment);
    SalvageRebuild.Report report;
    try (DocStore s = DocStore.openRebuildingIndexSkippingDamage(dir, options(), false)) {
      report = s.skippedDamage();
      assertThat(report.lost()).isNotEmpty();
    }

    Files.createDirectories(tmp.resolve("rsyncd"));
    try (RsyncDaemon daemon = RsyncDaemon.start(peer.resolve("queue"), tmp.resolve("rsyncd"))) {
      Run r = run("repair-segments", "--data", dir.toString(), "--from", daemon.url());
      assertThat(r.exit()).as(r.out() + r.err()).isZero();
      assertThat(r.out()).contains("repaired").contains("run `docstore rebuild-index`");
    }
    assertThat(run("verify", dir.toString()).exit()).isZero();
    // Same layout, so the addresses the skipping rebuild kept for the lost IDs are good again.
    try (DocStore s = DocStore.open(dir, options())) {
      for (long id : report.lost()) {
        assertThat(read(s, id)).as("id %d", id).isEqualTo(expected(newest.get(id)));
      }
    }
    Run rebuild = run("rebuild-index", "--data", dir.toString());
    assertThat(rebuild.exit()).as(rebuild.out() + rebuild.err()).isZero();
    assertAllExact(dir, newest);
  }

  @Test
  void aCopyThatIsDamagedAnotherSegmentOrAnotherLayoutIsRefused() throws Exception {
    Path dir = tmp.resolve("data");
    write(dir, 0);
    List<QueueRecord> records = records(dir);
    Path segment = damagedSegment(dir, records);
    Path name = segment.getFileName();
    Path damagedPeer = tmp.resolve("damaged-peer");
    copyTree(dir, damagedPeer);
    flip(damagedPeer.resolve("queue").resolve(name), Files.size(segment) / 3);
    Path otherSegment = tmp.resolve("other-segment");
    copyTree(dir, otherSegment);
    SegmentFileName n = SegmentFileName.parse(segment).orElseThrow();
    Files.copy(
        new SegmentFileName(n.segment() + 1, true).in(otherSegment.resolve("queue")),
        otherSegment.resolve("queue").resolve(name),
        StandardCopyOption.REPLACE_EXISTING);
    Path otherStore = tmp.resolve("other-store");
    write(otherStore, 100); // the same segment numbers, other bodies: another segment
    flipMiddle(segment);
    byte[] damaged = Files.readAllBytes(segment);
    Map<Path, Object> inodes = inodes(dir.resolve("queue"));

    Map<Path, String> why = new LinkedHashMap<>();
    why.put(damagedPeer, "the copy does not verify");
    why.put(otherSegment, "header names segment " + (n.segment() + 1));
    why.put(otherStore, "differs from the local one");
    for (var e : why.entrySet()) {
      Run r = run("repair-segments", "--data", dir.toString(), "--from", e.getKey().toString());
      assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(1);
      assertThat(r.out()).contains(name + ": NOT repaired").contains(e.getValue());
      assertThat(Files.readAllBytes(segment)).as("left as it was").isEqualTo(damaged);
      assertThat(inodes(dir.resolve("queue")))
          .as("nothing replaced, no temp file")
          .isEqualTo(inodes);
    }
    assertThat(run("verify", dir.toString()).exit()).isEqualTo(1);
  }

  @Test
  void repairRefusesWhileAServerHoldsTheDirectory() throws Exception {
    Path dir = tmp.resolve("data");
    write(dir, 0);
    Path peer = tmp.resolve("peer");
    copyTree(dir, peer);
    Path segment = damagedSegment(dir, records(dir));
    flipMiddle(segment);
    byte[] damaged = Files.readAllBytes(segment);
    try (DocStore running = DocStore.open(dir, options())) {
      Run r = run("repair-segments", "--data", dir.toString(), "--from", peer.toString());
      assertThat(r.exit()).isEqualTo(1);
      assertThat(r.err()).contains("in use").contains("stop it first");
    }
    assertThat(Files.readAllBytes(segment)).isEqualTo(damaged);
  }
}
