package io.docstore.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The GROUPS record kind: its layout (projections found by group name, version and expiry of both
 * kinds, a relocated copy), damage reported rather than read past, and the writer keeping a
 * document's projections and the document at consecutive sequences under concurrent appends.
 */
class GroupsBodyTest {

  @TempDir java.nio.file.Path dir;

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void projectionsAreFoundByNameAndVersionAndExpiryFollowTheKind() {
    String[] names = {"summary", "card", "é"};
    byte[][] projections = {utf8("{\"title\":\"x\"}"), new byte[0], utf8("{\"a\":1}")};
    byte[] withDocument = RecordBody.groups(-1, RecordBody.NEVER, names, projections);
    QueueRecord r = new QueueRecord(7, 42, 100, Op.GROUPS, 1, withDocument);
    assertThat(r.version()).as("the document's: the next sequence").isEqualTo(101);
    assertThat(r.expiresAtMillis()).isEqualTo(RecordBody.NEVER);
    assertThat(r.projection(utf8("summary"))).isEqualTo(projections[0]);
    assertThat(r.projection(utf8("card"))).isEmpty();
    assertThat(r.projection(utf8("é"))).isEqualTo(projections[2]);
    assertThat(r.projection(utf8("other"))).isNull();
    assertThat(r.stores()).isFalse();
    assertThat(RecordBody.groupsWithDocument(Op.GROUPS, ByteBuffer.wrap(withDocument), 0)).isTrue();
    assertThat(RecordBody.groupNames(ByteBuffer.wrap(withDocument), 0, withDocument.length))
        .isEqualTo(List.of(names));

    byte[] reprojected = RecordBody.groups(55, 1_900_000_000_000L, names, projections);
    QueueRecord again = new QueueRecord(8, 42, 200, Op.GROUPS, 1, reprojected);
    assertThat(again.version()).as("its source's").isEqualTo(55);
    assertThat(again.expiresAtMillis()).isEqualTo(1_900_000_000_000L);
    assertThat(again.projection(utf8("é"))).isEqualTo(projections[2]);
    assertThat(RecordBody.groupsWithDocument(Op.GROUPS, ByteBuffer.wrap(reprojected), 0)).isFalse();

    byte[] moved =
        RecordBody.relocated(
            55, 8, Op.GROUPS, 0, ByteBuffer.wrap(reprojected), 0, reprojected.length);
    QueueRecord relocated = new QueueRecord(9, 42, 300, Op.RELOCATED, 1, moved);
    assertThat(relocated.originalOp()).isEqualTo(Op.GROUPS);
    assertThat(relocated.version()).isEqualTo(55);
    assertThat(relocated.originalAddress()).isEqualTo(8);
    assertThat(relocated.expiresAtMillis()).isEqualTo(1_900_000_000_000L);
    assertThat(relocated.projection(utf8("summary"))).isEqualTo(projections[0]);
    assertThat(relocated.stores()).isFalse();
  }

  @Test
  void sectionsThatOverrunTheBodyAreDamageNotData() {
    byte[] body =
        RecordBody.groups(
            -1, RecordBody.NEVER, new String[] {"summary"}, new byte[][] {utf8("{}")});
    for (int cut = 10; cut < body.length; cut++) {
      byte[] torn = java.util.Arrays.copyOf(body, cut);
      assertThatThrownBy(() -> new QueueRecord(1, 1, 1, Op.GROUPS, 1, torn).projection(utf8("x")))
          .as("cut at %d", cut)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("overrun");
    }
    assertThatThrownBy(
            () -> RecordBody.groups(-1, 0, new String[] {""}, new byte[][] {new byte[0]}))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aDocumentAndItsProjectionsTakeConsecutiveSequencesUnderConcurrentAppends() throws Exception {
    byte[] groups =
        RecordBody.groups(-1, RecordBody.NEVER, new String[] {"s"}, new byte[][] {utf8("{}")});
    try (DocQueue q = DocQueue.open(dir, QueueOptions.builder().segmentSize(64 * 1024).build())) {
      Thread[] threads = new Thread[4];
      for (int t = 0; t < threads.length; t++) {
        int base = t * 10_000;
        threads[t] =
            new Thread(
                () -> {
                  Random rnd = new Random(base);
                  try {
                    for (int i = 0; i < 500; i++) {
                      byte[] doc = utf8("{\"n\":" + rnd.nextInt() + "}");
                      if (i % 3 == 0) {
                        q.writer().append(base + i, Op.PUT, 1, doc);
                      } else {
                        Appended[] a =
                            q.writer().appendWithGroups(base + i, 1, groups, Op.PUT, doc);
                        assertThat(a[0].sequence()).isGreaterThan(1);
                      }
                    }
                  } catch (Exception e) {
                    throw new AssertionError(e);
                  }
                });
        threads[t].start();
      }
      for (Thread t : threads) {
        t.join();
      }
      q.writer().flush();
      int grouped = 0;
      try (QueueTailer t = q.tailer(1)) {
        QueueRecord prev = null;
        QueueRecord r;
        while ((r = t.poll()) != null) {
          if (prev != null && prev.op() == Op.GROUPS) {
            assertThat(r.op()).isEqualTo(Op.PUT);
            assertThat(r.id()).isEqualTo(prev.id());
            assertThat(prev.version()).isEqualTo(r.sequence());
            grouped++;
          }
          prev = r;
        }
      }
      assertThat(grouped).isEqualTo(4 * 333);
      assertThatThrownBy(() -> q.writer().appendWithGroups(1, 1, groups, Op.DELETE, new byte[0]))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }
}
