package io.docstore.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.FaultInjectingFileSystem;
import io.docstore.io.SyncPolicy;
import io.docstore.io.TestSupport;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Power loss through the file-system seam: unsynced bytes (all of them, or a random set of pages,
 * written back out of order), undurable creates and renames are dropped at random moments,
 * sometimes after an injected fault (failing fsync, rename, directory fsync, full disk) broke a
 * write or a seal half way. After each reopen every record acknowledged by awaitDurable is present
 * byte-exact, what survived is a prefix of what was appended, and the writer resumes.
 */
class QueueFaultInjectionTest {

  @TempDir Path dir;

  record Appendage(long id, byte[] body, long address) {}

  @Test
  void acknowledgedRecordsSurviveCrashes() throws Exception {
    long seed = TestSupport.seed("QueueFaultInjectionTest.acknowledgedRecordsSurviveCrashes");
    Random rnd = new Random(seed);
    FaultInjectingFileSystem fs = new FaultInjectingFileSystem();
    // Background fsyncs (bytesPerSync) too, some runs: they race the appends, seals and injected
    // faults.
    QueueOptions options =
        QueueOptions.builder()
            .fileSystem(fs)
            .syncPolicy(SyncPolicy.ALWAYS)
            .blockSize(600)
            .segmentSize(6_000)
            .bytesPerSync(rnd.nextBoolean() ? 0 : 1 + rnd.nextInt(3_000))
            .build();
    List<Appendage> model = new ArrayList<>();
    long acknowledged = 0;
    // An append that failed may still have reached the file (its block was written, a later step
    // such as a seal failed): its outcome is unknown, so recovery may or may not bring it back.
    Appendage uncertain = null;
    int crashes = 40 * TestSupport.scale();
    for (int c = 0; c < crashes; c++) {
      DocQueue q = DocQueue.open(dir, options);
      long recovered = q.lastSequence();
      if (uncertain != null && recovered == model.size() + 1) {
        model.add(uncertain);
      }
      uncertain = null;
      assertThat(recovered)
          .as("crash %d", c)
          .isGreaterThanOrEqualTo(acknowledged)
          .isLessThanOrEqualTo(model.size());
      model.subList((int) recovered, model.size()).clear();
      try (QueueTailer t = q.tailer(1)) {
        for (int s = 1; s <= model.size(); s++) {
          QueueRecord r = t.poll();
          Appendage e = model.get(s - 1);
          assertThat(r.sequence()).isEqualTo(s);
          if (e.address() > 0) {
            assertThat(r.address()).isEqualTo(e.address());
          }
          assertThat(r.body()).isEqualTo(e.body());
          assertThat(q.reader().get(r.address()).id()).isEqualTo(e.id());
        }
        assertThat(t.poll()).isNull();
      }
      if (rnd.nextInt(3) == 0) {
        FaultInjectingFileSystem.Op[] kinds = {
          FaultInjectingFileSystem.Op.FORCE,
          FaultInjectingFileSystem.Op.RENAME,
          FaultInjectingFileSystem.Op.SYNC_DIR,
          FaultInjectingFileSystem.Op.WRITE,
          FaultInjectingFileSystem.Op.CREATE
        };
        fs.failAfter(kinds[rnd.nextInt(kinds.length)], rnd.nextInt(20));
      } else if (rnd.nextInt(5) == 0) {
        fs.setSpaceLimit(rnd.nextInt(20_000));
      }
      int ops = rnd.nextInt(300);
      try {
        for (int i = 0; i < ops; i++) {
          byte[] body = new byte[rnd.nextInt(rnd.nextInt(10) == 0 ? 2_000 : 120)];
          rnd.nextBytes(body);
          long id = rnd.nextInt(1 << 20);
          uncertain = new Appendage(id, body, -1);
          Appended a = q.writer().append(id, Op.PUT, i, body);
          assertThat(a.sequence()).isEqualTo(model.size() + 1);
          uncertain = null;
          model.add(new Appendage(id, body, a.address()));
          if (rnd.nextInt(4) == 0) {
            q.writer().awaitDurable(a.sequence());
            acknowledged = a.sequence();
          }
        }
      } catch (IOException injected) {
        // a fault hit the writer; what it acknowledged before must survive the crash below
      }
      // Half the crashes write back a random set of the unforced pages (out of order), half none.
      fs.crash(
          rnd.nextBoolean()
              ? FaultInjectingFileSystem.Writeback.none()
              : FaultInjectingFileSystem.Writeback.random(rnd.nextLong()));
      try {
        q.close();
      } catch (IOException expectedAfterCrash) {
        // handles died in the crash
      }
    }
    try (DocQueue q = DocQueue.open(dir, options)) {
      assertThat(q.lastSequence()).isGreaterThanOrEqualTo(acknowledged);
    }
  }
}
