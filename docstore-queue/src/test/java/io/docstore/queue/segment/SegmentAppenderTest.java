package io.docstore.queue.segment;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.FileSystem;
import io.docstore.queue.block.BlockBuilder;
import io.docstore.queue.block.BlockReader;
import io.docstore.queue.block.DecodedBlock;
import io.docstore.queue.format.BlockFormat;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SegmentAppender and SegmentScanner: blocks appended, rolled by size, sealed with a matching
 * footer.
 */
class SegmentAppenderTest {

  @TempDir Path dir;

  @Test
  void rollsBySizeAndSealsWithAFooterTheScannerAccepts() throws Exception {
    QueueCounters counters = new QueueCounters();
    SegmentSet set = new SegmentSet();
    SegmentAppender a =
        SegmentAppender.createFirst(FileSystem.real(), dir, set, counters, 120, 1, 1);
    BlockBuilder b = new BlockBuilder();
    for (long seq = 1; seq <= 10; seq++) {
      b.add(seq, seq, seq, BlockFormat.OP_PUT, new byte[60]);
      a.write(b.finish(), b.lastCrc(), seq);
    }
    a.force();
    a.close();
    assertThat(counters.segmentsSealed.sum()).isGreaterThanOrEqualTo(2);
    assertThat(set.get(1).sealed()).isTrue();
    assertThat(set.last().sealed()).isFalse();
    Path sealed = dir.resolve("seg-0000000001.sealed");
    try (FileChannel ch = FileChannel.open(sealed)) {
      SegmentScanner s = new SegmentScanner(sealed, ch, ch.size(), new BlockReader(512));
      DecodedBlock block = new DecodedBlock();
      int blocks = 0;
      SegmentScanner.Kind k;
      while ((k = s.next(block)) == SegmentScanner.Kind.BLOCK) {
        blocks++;
      }
      assertThat(k).isEqualTo(SegmentScanner.Kind.FOOTER);
      assertThat(s.footer().blockCount()).isEqualTo(blocks);
      assertThat(s.footer().firstSequence()).isEqualTo(1);
      assertThat(s.footer().lastSequence()).isEqualTo(set.get(1).lastSequence());
      assertThat(s.durableClaimAfterDamage()).isEqualTo(-1);
    }
    assertThat(Files.exists(dir.resolve("seg-0000000001.active"))).isFalse();
    set.closeAll();
  }
}
