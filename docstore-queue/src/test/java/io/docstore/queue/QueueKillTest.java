package io.docstore.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.TestSupport;
import io.docstore.queue.tools.QueueVerifier;
import java.io.BufferedReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real child JVM appends with sync=always and prints each acknowledged record; it is killed with
 * SIGKILL after a random number of acknowledgements, or dies at a kill point inside a seal or a
 * roll. After each death every acknowledged record must read back byte-exact and the next child
 * must resume the sequence.
 */
class QueueKillTest {

  @TempDir Path dir;

  private static final String[] KILL_POINTS = {
    "queue.seal.beforeFooter",
    "queue.seal.afterFooter",
    "queue.seal.beforeRename",
    "queue.seal.afterRename",
    "queue.seal.afterPublish",
    "queue.roll.afterCreate",
    "queue.block.afterWrite@7",
  };

  record Ack(long sequence, long id, long address) {}

  @Test
  void acknowledgedRecordsSurviveSigkill() throws Exception {
    long seed = TestSupport.seed("QueueKillTest.acknowledgedRecordsSurviveSigkill");
    Random rnd = new Random(seed);
    List<Ack> acked = new ArrayList<>();
    int kills = 24 * TestSupport.scale();
    for (int k = 0; k < kills; k++) {
      List<String> jvmArgs = new ArrayList<>();
      boolean killPoint = k % 4 == 3;
      if (killPoint) {
        jvmArgs.add("-Ddocstore.killpoint=" + KILL_POINTS[rnd.nextInt(KILL_POINTS.length)]);
      }
      Process child =
          TestSupport.startJvm(
              KillChild.class, jvmArgs, dir.toString(), Long.toString(k * 1_000_000_000L));
      BufferedReader out = TestSupport.stdout(child);
      String ready = out.readLine();
      assertThat(ready).as("child %d did not start", k).startsWith("READY ");
      long resumedAt = Long.parseLong(ready.substring(6));
      long maxAcked = acked.isEmpty() ? 0 : acked.get(acked.size() - 1).sequence();
      assertThat(resumedAt).isGreaterThanOrEqualTo(maxAcked);
      int target = killPoint ? Integer.MAX_VALUE : 1 + rnd.nextInt(400);
      int seen = 0;
      String line;
      while (seen < target && (line = out.readLine()) != null) {
        seen += record(line, acked);
      }
      // SIGKILL closes our end of the pipe: acknowledgements not read yet are simply not checked.
      TestSupport.kill9(child);
      assertThat(child.exitValue()).isIn(137, 9, -9);
      verify(acked);
    }
    assertThat(QueueVerifier.verify(dir)).isEmpty();
  }

  /** Parses a complete ACK line (a line cut by the kill has no END and is ignored). */
  private static int record(String line, List<Ack> acked) {
    String[] f = line.split(" ");
    if (f.length != 5 || !f[0].equals("ACK") || !f[4].equals("END")) {
      return 0;
    }
    acked.add(new Ack(Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3])));
    return 1;
  }

  private static void verifyOne(DocQueue q, Ack a) throws Exception {
    QueueRecord r = q.reader().get(a.address());
    assertThat(r.sequence()).isEqualTo(a.sequence());
    assertThat(r.id()).isEqualTo(a.id());
    assertThat(r.acceptedAtMillis()).isEqualTo(a.id());
    assertThat(r.body()).isEqualTo(KillChild.body(a.id()));
  }

  private void verify(List<Ack> acked) throws Exception {
    acked.sort((x, y) -> Long.compare(x.sequence(), y.sequence()));
    try (DocQueue q = DocQueue.open(dir, KillChild.options())) {
      if (!acked.isEmpty()) {
        assertThat(q.lastSequence()).isGreaterThanOrEqualTo(acked.get(acked.size() - 1).sequence());
      }
      for (Ack a : acked) {
        verifyOne(q, a);
      }
    }
  }
}
