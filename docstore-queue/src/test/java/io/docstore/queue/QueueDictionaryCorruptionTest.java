package io.docstore.queue;

import static io.docstore.queue.V3Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.io.CorruptionException;
import io.docstore.queue.tools.Problem;
import io.docstore.queue.tools.QueueVerifier;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Damage to segments of format 3 (docs/formats/segment.md, "Torn tails and damage"): a flipped bit
 * in a record compressed with the dictionary, or in a segment's dictionary block, is reported with
 * the file and the offset of the damaged block (44 for the dictionary), by reads through the
 * mapping and by positional reads, by tailers and by the verifier, while undamaged records still
 * read.
 */
class QueueDictionaryCorruptionTest extends DamagedQueueTestBase {

  private static void expectCorruption(DocQueue q, Expected e, Path file, long offset) {
    assertThatThrownBy(() -> q.reader().get(e.address()))
        .as("read of sequence %d", e.sequence())
        .isInstanceOfSatisfying(
            CorruptionException.class,
            c -> {
              assertThat(c.file()).isEqualTo(file);
              assertThat(c.offset()).isEqualTo(offset);
            });
  }

  @Test
  void aFlippedBitInACompressedRecordIsReportedWithFileAndBlockOffsetAndItsNeighbourStillReads()
      throws IOException {
    fill(1000);
    Path seg = sealedWithDictionary(0);
    List<Block> blocks = blocks(seg);
    // A block of records compressed with the dictionary, holding a compressed record and a
    // neighbour.
    Block found = null;
    for (Block b : blocks) {
      if (b.zstd() && b.count() >= 3 && stored(b, 1).compressed()) {
        found = b;
        break;
      }
    }
    Block target = found;
    int index = 1;
    assertThat(target)
        .as("a zstd block of 3+ records in %s: %s", seg, describe(blocks))
        .isNotNull();
    StoredRecord r = stored(target, index);
    flipBit(seg, r.bodyAt() + r.storedBody() / 2, 3);
    Expected damaged = expected(target.firstSequence() + index);
    Expected before = expected(target.firstSequence() + index - 1);
    Expected after = expected(target.firstSequence() + index + 1);

    for (boolean mapped : new boolean[] {true, false}) {
      try (DocQueue q = DocQueue.open(dir, opts(mapped))) {
        expectCorruption(q, damaged, seg, target.offset());
        check(q.reader().get(before.address()), before, "neighbour before, mapped " + mapped);
        check(q.reader().get(after.address()), after, "neighbour after, mapped " + mapped);
        expectCorruption(q, damaged, seg, target.offset());
        // A tailer decodes the whole block: its checksum fails, at the same place.
        try (QueueTailer t = q.tailer(damaged.sequence())) {
          assertThatThrownBy(t::poll)
              .isInstanceOfSatisfying(
                  CorruptionException.class,
                  c -> {
                    assertThat(c.file()).isEqualTo(seg);
                    assertThat(c.offset()).isEqualTo(target.offset());
                  });
        }
        // The space reclamation's scan of record headers checks each record: same place.
        RecordHeaderScan scan =
            q.scanHeaders(
                io.docstore.queue.format.SegmentFileName.parse(seg).orElseThrow().segment());
        assertThatThrownBy(
                () -> {
                  while (scan.next()) {
                    assertThat(scan.sequence()).isLessThan(damaged.sequence());
                  }
                })
            .isInstanceOfSatisfying(
                CorruptionException.class,
                c -> {
                  assertThat(c.file()).isEqualTo(seg);
                  assertThat(c.offset()).isEqualTo(target.offset());
                });
        // Everything else still reads.
        for (Expected e : model) {
          if (e != damaged) {
            check(q.reader().get(e.address()), e, "mapped " + mapped);
          }
        }
      }
    }
    List<Problem> problems = QueueVerifier.verify(dir);
    assertThat(problems)
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.file()).isEqualTo(seg);
              assertThat(p.offset()).isEqualTo(target.offset());
              assertThat(p.description()).contains("checksum");
            });
  }

  @ParameterizedTest(name = "bit flipped at {0} of the dictionary")
  @ValueSource(ints = {0, 1, 2})
  void aDamagedDictionaryBlockFailsReadsOfThatSegmentAtOffset44AndOtherSegmentsStillRead(int where)
      throws IOException {
    fill(1000);
    Path seg = sealedWithDictionary(1);
    List<Path> all = segments(dir);
    Block dict = blocks(seg).get(0);
    assertThat(dict.offset()).isEqualTo(44);
    // 0: in the dictionary's bytes; 1: in its header (stored length); 2: its block checksum.
    long at =
        switch (where) {
          case 0 -> dict.offset() + 24 + (dict.end() - dict.offset() - 24) / 2;
          case 1 -> dict.offset() + 6;
          default -> dict.offset() + 1;
        };
    List<Expected> compressedHere = new ArrayList<>();
    List<Expected> elsewhere = new ArrayList<>();
    for (Path p : all) {
      for (Block b : blocks(p)) {
        for (int i = 0; i < b.count(); i++) {
          Expected e = expected(b.firstSequence() + i);
          if (p.equals(seg)) {
            if (b.zstd() && stored(b, i).compressed()) {
              compressedHere.add(e);
            }
          } else {
            elsewhere.add(e);
          }
        }
      }
    }
    assertThat(compressedHere).hasSizeGreaterThan(10);
    flipBit(seg, at, 5);

    for (boolean mapped : new boolean[] {true, false}) {
      try (DocQueue q = DocQueue.open(dir, opts(mapped))) {
        // Records of the other segments first (those before share the same dictionary), then this
        // one's.
        for (Expected e : elsewhere) {
          check(q.reader().get(e.address()), e, "other segment, mapped " + mapped);
        }
        for (Expected e : compressedHere) {
          expectCorruption(q, e, seg, 44);
        }
        for (Expected e : elsewhere) {
          check(q.reader().get(e.address()), e, "other segment again, mapped " + mapped);
        }
        // A tailer reads the dictionary block whole, or (started inside the segment) needs it; a
        // tailer skipping to its start trusts the block headers it skips (see the test of that
        // below), so with a damaged stored length it fails further on.
        try (QueueTailer t = q.tailer(compressedHere.get(3).sequence())) {
          assertThatThrownBy(t::poll)
              .isInstanceOfSatisfying(
                  CorruptionException.class,
                  c -> {
                    assertThat(c.file()).isEqualTo(seg);
                    if (where != 1) {
                      assertThat(c.offset()).isEqualTo(44);
                    }
                  });
        }
      }
    }
    assertThat(QueueVerifier.verify(dir))
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.file()).isEqualTo(seg);
              assertThat(p.offset()).isEqualTo(44);
            });
  }
}
