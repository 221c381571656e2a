package io.docstore.service.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.queue.Op;
import io.docstore.queue.QueueRecord;
import io.docstore.queue.RecordBody;
import io.docstore.queue.format.Address;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The position reads see, record by record, as the ingest path hands records over: inside a run
 * (each record passes its message only once all the message's records came, projections first),
 * after a run cut short by a crash, for a relocated (resolved) SOURCE record, and seeded.
 */
class VisiblePositionsTest {

  private static final byte[] DOC = "{}".getBytes(StandardCharsets.US_ASCII);

  private long next = 1;

  private QueueRecord record(long id, Op op, byte[] body) {
    long seq = next++;
    return new QueueRecord(Address.of(1, 44 + seq * 64, 0), id, seq, op, 0, body);
  }

  private QueueRecord source(int partition, long nextOffset, long[] ids, long[] offsets) {
    return record(
        SourceKeys.key(partition),
        Op.SOURCE,
        RecordBody.source(partition, nextOffset, ids, offsets));
  }

  @Test
  void aRunPassesEachMessageOnceAllItsRecordsCame() {
    VisiblePositions v = new VisiblePositions();
    assertThat(v.get(3)).isEqualTo(-1);
    assertThat(v.isEmpty()).isTrue();
    // Messages 10 (put of 7, with its projections first), 12 (delete of 8), 13 (put of 9); 11 and
    // 14 were dead letters.
    v.applied(source(3, 15, new long[] {7, 7, 8, 9}, new long[] {10, 10, 12, 13}));
    assertThat(v.get(3)).as("the run's first message is not visible yet").isEqualTo(10);
    v.applied(
        record(
            7, Op.GROUPS, RecordBody.groups(-1, RecordBody.NEVER, new String[0], new byte[0][])));
    assertThat(v.get(3)).as("projections without their document").isEqualTo(10);
    v.applied(record(7, Op.PUT, DOC));
    assertThat(v.get(3)).isEqualTo(12);
    v.applied(record(8, Op.DELETE, new byte[0]));
    assertThat(v.get(3)).isEqualTo(13);
    v.applied(record(9, Op.PUT, DOC));
    assertThat(v.get(3)).as("the run's next offset, past the dead letter").isEqualTo(15);
    v.applied(record(20, Op.PUT, DOC)); // not a run's: nothing moves
    assertThat(v.get(3)).isEqualTo(15);
    assertThat(v.get(4)).isEqualTo(-1);
    assertThat(v.isEmpty()).isFalse();
  }

  @Test
  void aRunCutShortStaysWhereItStoodAndTheNextRunGoesOn() {
    VisiblePositions v = new VisiblePositions();
    v.applied(source(0, 3, new long[] {1, 2, 3}, new long[] {0, 1, 2}));
    v.applied(record(1, Op.PUT, DOC));
    // A crash: records 2 and 3 never reached the queue; after the restart another partition's run
    // comes first, then partition 0 is read again from offset 1.
    v.applied(source(1, 1, new long[] {5}, new long[] {0}));
    assertThat(v.get(0)).isEqualTo(1);
    assertThat(v.get(1)).isEqualTo(0);
    v.applied(record(5, Op.PUT, DOC));
    assertThat(v.get(1)).isEqualTo(1);
    assertThat(v.get(0)).as("not moved by a record of another run").isEqualTo(1);
    v.applied(source(0, 3, new long[] {2, 3}, new long[] {1, 2}));
    v.applied(record(2, Op.PUT, DOC));
    v.applied(record(3, Op.PUT, DOC));
    assertThat(v.get(0)).isEqualTo(3);
  }

  @Test
  void aRecordAtAnotherSequenceOrOfAnotherIdEndsTheRun() {
    VisiblePositions v = new VisiblePositions();
    v.applied(source(0, 9, new long[] {1, 2}, new long[] {5, 6}));
    next++; // a sequence stepped over (a reclaimed segment)
    v.applied(record(1, Op.PUT, DOC));
    assertThat(v.get(0)).isEqualTo(5);
    v.applied(source(0, 9, new long[] {1, 2}, new long[] {5, 6}));
    v.applied(record(2, Op.PUT, DOC));
    assertThat(v.get(0)).isEqualTo(5);
  }

  @Test
  void aRelocatedSourceRecordRaisesToItsResolvedPositionAndNeverLowers() {
    VisiblePositions v = new VisiblePositions();
    QueueRecord original = source(2, 40, new long[] {1}, new long[] {39});
    v.applied(original);
    v.applied(record(1, Op.PUT, DOC));
    assertThat(v.get(2)).isEqualTo(40);
    byte[] resolved = RecordBody.source(2, 30, new long[0], new long[0]);
    QueueRecord relocated =
        record(
            original.id(),
            Op.RELOCATED,
            RecordBody.relocated(
                original.sequence(),
                original.address(),
                Op.SOURCE,
                RecordBody.NEVER,
                ByteBuffer.wrap(resolved),
                0,
                resolved.length));
    v.applied(relocated);
    assertThat(v.get(2)).as("an older position does not lower it").isEqualTo(40);

    VisiblePositions rebuilt = new VisiblePositions();
    rebuilt.applied(relocated); // its original's segment was reclaimed
    assertThat(rebuilt.get(2)).isEqualTo(30);
  }

  @Test
  void seedsAndClear() {
    VisiblePositions v = new VisiblePositions();
    v.seedFromStart(source(5, 50, new long[] {1, 2}, new long[] {44, 47}));
    assertThat(v.get(5)).as("a lower bound: where the run starts").isEqualTo(44);
    v.seedFromStart(record(1, Op.PUT, DOC));
    assertThat(v.get(1)).as("not a SOURCE record").isEqualTo(-1);
    v.seed(6, 12);
    assertThat(v.get(6)).isEqualTo(12);
    v.clear();
    assertThat(v.get(5)).isEqualTo(-1);
    assertThat(v.isEmpty()).isTrue();
  }
}
