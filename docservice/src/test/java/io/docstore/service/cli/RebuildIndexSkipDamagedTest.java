package io.docstore.service.cli;

import static io.docstore.service.testing.DamagedStore.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.queue.Op;
import io.docstore.queue.QueueRecord;
import io.docstore.service.DocStore;
import io.docstore.service.ServiceFixture;
import io.docstore.service.store.SalvageRebuild;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code docstore rebuild-index --skip-damaged} over real damage inside a sealed segment (one byte
 * flipped in the middle of the file): it indexes around the damage, reports the damaged stretch and
 * the IDs it could not recover, never lets an older version show through as current, and the store
 * starts afterwards; the plain rebuild still stops and changes nothing.
 */
class RebuildIndexSkipDamagedTest {

  @TempDir Path tmp;

  @Test
  void rebuildSkipsTheDamageListsTheLostIdsAndNeverServesAnOlderVersion() throws Exception {
    Path dir = tmp.resolve("data");
    write(dir, 0);
    List<QueueRecord> records = records(dir);
    Map<Long, QueueRecord> newest = newest(records);
    Path segment = damagedSegment(dir, records);
    flipMiddle(segment);
    Set<Long> lostRecords = unreadable(dir, records);
    Path cliCopy = tmp.resolve("cli");
    copyTree(dir, cliCopy);

    // What must come out: the newest version of an ID is unreadable: a put is lost (an error, not
    // the older version the queue still has), a delete stays a delete.
    Map<Long, QueueRecord> newestReadable = new HashMap<>();
    for (QueueRecord r : records) {
      if (!lostRecords.contains(r.address())) {
        newestReadable.put(r.id(), r);
      }
    }
    Set<Long> lost = new TreeSet<>();
    Set<Long> deletionsKept = new TreeSet<>();
    int olderVersionsBehind = 0;
    for (QueueRecord n : newest.values()) {
      if (!lostRecords.contains(n.address())) {
        continue;
      }
      QueueRecord older = newestReadable.get(n.id());
      if (n.op() == Op.PUT) {
        lost.add(n.id());
        olderVersionsBehind += older != null && older.op() == Op.PUT ? 1 : 0;
      } else if (older != null && older.op() == Op.PUT) {
        deletionsKept.add(n.id());
      }
    }
    assertThat(olderVersionsBehind).as("lost IDs with an older version in the queue").isPositive();
    assertThat(deletionsKept).as("deletions in the damage of IDs put before").isNotEmpty();

    // The plain rebuild stops at the damage and changes nothing.
    Run plain = run("rebuild-index", "--data", dir.toString());
    assertThat(plain.exit()).isEqualTo(1);
    assertThat(plain.err()).contains("back in place").contains("--skip-damaged");

    SalvageRebuild.Report report;
    try (DocStore s = DocStore.openRebuildingIndexSkippingDamage(dir, options(), false)) {
      report = s.skippedDamage();
      for (long id : lost) {
        assertThat(read(s, id))
            .as("lost id %d: an error, not its older version", id)
            .isEqualTo("error");
      }
      for (long id : deletionsKept) {
        assertThat(read(s, id)).as("id %d deleted in the damage", id).isEqualTo("404");
      }
    }
    assertThat(report).isNotNull();
    assertThat(report.damage()).hasSize(1);
    assertThat(report.damage().get(0).file()).isEqualTo(segment);
    assertThat(report.damage().get(0).records()).isEqualTo(lostRecords.size());
    assertThat(set(report.lost())).isEqualTo(lost);
    assertThat(set(report.deletionsKept())).isEqualTo(deletionsKept);
    assertThat(report.unverified()).isEmpty();
    assertThat(report.limits()).isEmpty();
    assertThat(report.indexed()).isEqualTo(records.size() - lostRecords.size());

    // The store opens; every ID reads as its newest version, or as an error where that is lost.
    try (DocStore s = DocStore.open(dir, options())) {
      for (QueueRecord n : newest.values()) {
        String got = read(s, n.id());
        if (lost.contains(n.id())) {
          assertThat(got).as("lost id %d", n.id()).isEqualTo("error");
        } else {
          assertThat(got).as("id %d", n.id()).isEqualTo(expected(n));
        }
      }
      s.put(IDS + 1, body(IDS + 1, 9)); // and takes writes
    }
    // serve starts on it: a lost ID answers 500 corrupt (never its older version), others 200.
    long aLostId = lost.iterator().next();
    try (ServiceFixture f = ServiceFixture.start(dir)) {
      var r = f.get("/docs/" + aLostId);
      assertThat(r.statusCode()).isEqualTo(500);
      assertThat(r.body()).contains("corrupt").doesNotContain(dir.toString());
      long even = 2;
      assertThat(f.get("/docs/" + even).body()).isEqualTo(expected(newest.get(even)));
      var multi = f.get("/docs?ids=" + aLostId + "," + even);
      assertThat(multi.body()).contains("\"damaged\":[" + aLostId + "]");
      assertThat(f.get("/docs/" + (IDS + 1)).statusCode()).isEqualTo(200);
    }

    // The command prints the same and says so in its exit code; the report is kept.
    Run cli = run("rebuild-index", "--skip-damaged", "--data", cliCopy.toString());
    assertThat(cli.exit()).as(cli.out() + cli.err()).isEqualTo(1);
    assertThat(cli.out())
        .contains("damaged: " + cliCopy.resolve("queue").resolve(segment.getFileName()))
        .contains(lost.size() + " ID(s) lost")
        .contains(deletionsKept.size() + " ID(s) deleted in a damaged stretch")
        .contains(" " + aLostId + " ")
        .contains(SalvageRebuild.REPORT_FILE);
    try (Stream<Path> s = Files.list(cliCopy)) {
      Path aside =
          s.filter(p -> p.getFileName().toString().startsWith("index.damaged-"))
              .findFirst()
              .orElseThrow();
      assertThat(Files.readString(aside.resolve(SalvageRebuild.REPORT_FILE)))
          .contains(lost.size() + " ID(s) lost");
    }

    // A second rebuild that skips the damage keeps the same answers (the first one's index is now
    // the old one).
    try (DocStore s = DocStore.openRebuildingIndexSkippingDamage(dir, options(), false)) {
      assertThat(set(s.skippedDamage().lost())).isEqualTo(lost);
      for (long id : lost) {
        assertThat(read(s, id)).isEqualTo("error");
      }
    }
  }

  @Test
  void withTheOldIndexUnreadableTheRebuildSaysSoAndServesNoOlderVersionUnlessAskedTo()
      throws Exception {
    Path dir = tmp.resolve("data");
    write(dir, 0);
    List<QueueRecord> records = records(dir);
    Map<Long, QueueRecord> newest = newest(records);
    flipMiddle(damagedSegment(dir, records));
    Set<Long> lostRecords = unreadable(dir, records);
    flipMiddle(dir.resolve("index").resolve("MANIFEST"));
    Path stale = tmp.resolve("stale");
    copyTree(dir, stale);

    SalvageRebuild.Report report;
    try (DocStore s = DocStore.openRebuildingIndexSkippingDamage(dir, options(), false)) {
      report = s.skippedDamage();
      assertThat(report.lost()).isEmpty();
      assertThat(report.limits()).anyMatch(l -> l.contains("old index cannot be opened"));
      assertThat(report.unverified()).isNotEmpty();
      for (QueueRecord n : newest.values()) {
        String got = read(s, n.id());
        assertThat(got)
            .as("id %d: its newest version or an error, never an older version", n.id())
            .isIn(expected(n), "error");
        if (lostRecords.contains(n.address()) && n.op() == Op.PUT) {
          assertThat(got).as("id %d", n.id()).isEqualTo("error");
        }
      }
      for (long id : report.unverified()) {
        assertThat(read(s, id)).isEqualTo("error");
      }
    }

    Run r = run("rebuild-index", "--skip-damaged", "--accept-stale", "--data", stale.toString());
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.out()).contains("MAY BE STALE").contains("NOTE: the old index cannot be opened");
    try (DocStore s = DocStore.open(stale, options())) {
      for (QueueRecord n : newest.values()) {
        assertThat(read(s, n.id())).as("id %d", n.id()).isNotEqualTo("error");
      }
    }
  }

  @Test
  void damageTheRebuildCannotGoPastLeavesTheDirectoryAsItWasAndARepairFromAPeerFixesIt()
      throws Exception {
    Path dir = tmp.resolve("data");
    write(dir, 0);
    Path peer = tmp.resolve("peer");
    copyTree(dir, peer);
    Map<Long, QueueRecord> newest = newest(records(dir));
    Path segment = damagedSegment(dir, records(dir));
    flip(segment, 10); // in the header's format name: the queue does not open
    List<String> before = tree(dir);

    Run r = run("rebuild-index", "--skip-damaged", "--data", dir.toString());
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.err()).contains("back in place").contains("repair-segments");
    assertThat(tree(dir)).as("the data directory after the refused rebuild").isEqualTo(before);

    Run repair = run("repair-segments", "--data", dir.toString(), "--from", peer.toString());
    assertThat(repair.exit()).as(repair.out() + repair.err()).isZero();
    assertThat(run("verify", dir.toString()).exit()).isZero();
    assertAllExact(dir, newest);
  }
}
