package io.docstore.queue;

import static io.docstore.queue.V3Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.queue.tools.QueueVerifier;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * LZ4 appends (a shard catching up): with the queue's dictionary trained, the blocks begun while
 * they are on are LZ4 blocks after the segment's dictionary, every record reads back, the queue
 * says how many such bytes each segment holds (from the writer, then from the headers after a
 * reopen) and the verifier accepts the queue.
 */
class QueueLz4AppendsTest {

  @TempDir Path dir;

  private final List<Expected> model = new ArrayList<>();

  private void append(DocQueue q, Random rnd, int n) throws IOException {
    appendJson(q, rnd, n, model);
  }

  /** Per segment number, the bytes of blocks with records after its dictionary not of zrecords. */
  private Map<Long, Long> wholeBlockBytesFromTheFiles() throws IOException {
    Map<Long, Long> out = new HashMap<>();
    for (Path segment : segments(dir)) {
      boolean afterDictionary = false;
      long bytes = 0;
      for (Block b : blocks(segment)) {
        if (b.dictionary()) {
          afterDictionary = true;
        } else if (afterDictionary && b.count() > 0 && !b.zrecords()) {
          bytes += b.end() - b.offset();
        }
      }
      out.put(number(segment), bytes);
    }
    return out;
  }

  @Test
  void blocksBegunWhileOnAreLz4AfterTheDictionaryAndTheQueueCountsTheirBytes() throws IOException {
    Random rnd = new Random(7);
    QueueOptions options = options().segmentSize(64 * 1024).build();
    long firstLz4;
    long lastLz4;
    try (DocQueue q = DocQueue.open(dir, options)) {
      append(q, rnd, 200); // the dictionary is trained after 50
      byte[] probe = json(rnd, 800);
      assertThat(q.writer().precompress(List.of(probe))[0]).isNotNull();
      q.writer().flush(); // the next block begins with LZ4 appends on
      q.writer().lz4Appends(true);
      assertThat(q.writer().precompress(List.of(probe))[0]).as("compressed ahead").isNull();
      firstLz4 = model.size() + 1;
      append(q, rnd, 400);
      lastLz4 = model.size();
      q.writer().flush();
      q.writer().lz4Appends(false);
      append(q, rnd, 200);
      q.writer().flush();

      List<Block> blocks = allBlocks(dir);
      for (long s = firstLz4; s <= lastLz4; s++) {
        Block b = blockOf(blocks, s);
        assertThat(b.lz4()).as("block of sequence %d in %s", s, describe(blocks)).isTrue();
        assertThat(blocks(b.file()).get(0).dictionary())
            .as("the segment of sequence %d starts with the dictionary", s)
            .isTrue();
      }
      assertThat(blockOf(blocks, model.size()).zstd()).as("after LZ4 appends").isTrue();

      Map<Long, Long> expected = wholeBlockBytesFromTheFiles();
      assertThat(expected.values().stream().mapToLong(Long::longValue).sum()).isPositive();
      for (SegmentSummary s : q.segmentSummaries()) {
        assertThat(q.wholeBlockBytesAfterDictionary(s.number(), false))
            .as("segment %d, from the writer", s.number())
            .isEqualTo(expected.get(s.number()));
      }
      checkAll(q, model, 1, "with LZ4 appends");
    }

    // Reopened: the segments were written before the open, so their headers are read on request.
    Map<Long, Long> expected = wholeBlockBytesFromTheFiles();
    try (DocQueue q = DocQueue.open(dir, options)) {
      for (SegmentSummary s : q.segmentSummaries()) {
        if (!s.sealed()) {
          continue;
        }
        assertThat(q.wholeBlockBytesAfterDictionary(s.number(), false))
            .as("segment %d, not read yet", s.number())
            .isEqualTo(-1);
        assertThat(q.wholeBlockBytesAfterDictionary(s.number(), true))
            .as("segment %d, from its headers", s.number())
            .isEqualTo(expected.get(s.number()));
        assertThat(q.wholeBlockBytesAfterDictionary(s.number(), false))
            .as("segment %d, kept", s.number())
            .isEqualTo(expected.get(s.number()));
      }
      checkAll(q, model, 1, "after reopen");
    }
    assertThat(QueueVerifier.verify(dir)).isEmpty();
  }
}
