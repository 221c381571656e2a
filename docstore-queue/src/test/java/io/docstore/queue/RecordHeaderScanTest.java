package io.docstore.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A scan of record headers sees, segment by segment, exactly the records a tailer hands on (same
 * sequence, address, ID, op and acceptance time), for LZ4 blocks (before the dictionary is trained)
 * and blocks of records compressed one by one alike, the active segment included; a hollow segment
 * cannot be scanned.
 */
class RecordHeaderScanTest extends DamagedQueueTestBase {

  @Test
  void seesWhatATailerSeesInEverySegment() throws Exception {
    fill(1500);
    try (DocQueue q = DocQueue.open(dir, opts(true))) {
      for (int i = 0; i < 40; i++) {
        q.writer().append(10_000 + i, i % 3 == 0 ? Op.DELETE : Op.PUT, 99, new byte[0]);
      }
      q.writer().sync();
      List<QueueRecord> all = new ArrayList<>();
      try (QueueTailer t = q.tailer(1)) {
        QueueRecord r;
        while ((r = t.poll()) != null) {
          all.add(r);
        }
      }
      List<SegmentSummary> segments = q.segmentSummaries();
      assertThat(segments.size()).isGreaterThan(3);
      int at = 0;
      for (SegmentSummary s : segments) {
        RecordHeaderScan scan = q.scanHeaders(s.number());
        while (scan.next()) {
          QueueRecord r = all.get(at++);
          assertThat(scan.sequence()).isEqualTo(r.sequence());
          assertThat(scan.address()).isEqualTo(r.address());
          assertThat(scan.id()).isEqualTo(r.id());
          assertThat(scan.op()).isEqualTo(r.op());
          assertThat(scan.acceptedAtMillis()).isEqualTo(r.acceptedAtMillis());
          assertThat(scan.storedLength()).isGreaterThanOrEqualTo(17);
        }
        assertThat(all.get(at - 1).sequence())
            .as("segment %d", s.number())
            .isEqualTo(s.lastSequence());
      }
      assertThat(at).isEqualTo(all.size()).isEqualTo(1540);

      long victim = segments.get(1).number();
      q.reclaim(victim);
      assertThatThrownBy(() -> q.scanHeaders(victim))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("hollow");
    }
  }
}
