package io.docstore.queue;

import static io.docstore.queue.V3Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.io.Checksums;
import io.docstore.io.CorruptionException;
import io.docstore.queue.block.BlockBuilder;
import io.docstore.queue.format.SegmentFormat;
import io.docstore.queue.segment.SegmentFooter;
import io.docstore.queue.tools.QueueVerifier;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * Damage (and a full disk) around format 3 segments that the code handles against its documented
 * policy (docs/formats/segment.md, "Torn tails and damage"; QueueWriter on a full disk). Each of
 * these failed against the first build of format 3 (a review found them) and guards its fix.
 */
class QueueDictionaryDamageTest extends DamagedQueueTestBase {

  /**
   * The docs: a bad block in a sealed segment leaves the queue openable ("the queue opens"; a
   * damaged dictionary block fails reads of that segment only, "other segments read"). That holds
   * also when the damaged dictionary is the one of the newest sealed segment and the active segment
   * is still empty (a queue closed right after a roll).
   */
  @Test
  void aDamagedDictionaryInTheSealedSegmentBeforeAnEmptyActiveOneStillLetsTheQueueOpen()
      throws IOException {
    Random rnd = new Random(11);
    try (DocQueue q = DocQueue.open(dir, opts(true))) {
      // Until a segment was sealed after the dictionary and the next one is still empty (header
      // only).
      for (int i = 0; i < 5000; i++) {
        byte[] body = json(rnd, 300 + rnd.nextInt(900));
        Appended a = q.writer().append(i, Op.PUT, i, body);
        model.add(new Expected(i + 1, i, Op.PUT, i, body, a.address()));
        q.writer().flush();
        if (segments(dir).size() >= 3 && Files.size(active(dir)) == SegmentFormat.HEADER_LENGTH) {
          break;
        }
      }
    }
    Path active = active(dir);
    assertThat(Files.size(active)).isEqualTo(SegmentFormat.HEADER_LENGTH);
    List<Path> all = segments(dir);
    Path previous = all.get(all.size() - 2);
    Block dict = blocks(previous).get(0);
    assertThat(dict.dictionary()).isTrue();
    flipBit(previous, dict.offset() + 24 + (dict.end() - dict.offset() - 24) / 2, 2);
    List<Expected> elsewhere = new ArrayList<>();
    for (Path p : all) {
      if (!p.equals(previous)) {
        for (Block b : blocks(p)) {
          for (int i = 0; i < b.count(); i++) {
            elsewhere.add(expected(b.firstSequence() + i));
          }
        }
      }
    }
    assertThat(elsewhere).isNotEmpty();
    try (DocQueue q = DocQueue.open(dir, opts(true))) {
      for (Expected e : elsewhere) {
        check(q.reader().get(e.address()), e, "segment without damage");
      }
      // Appends go on (a dictionary is trained again, or none is used).
      Appended a = q.writer().append(1, Op.PUT, 1, json(rnd, 500));
      q.writer().flush();
      assertThat(q.reader().get(a.address()).sequence()).isEqualTo(model.size() + 1);
    }
  }

  /**
   * The torn-tail rule (docs: "a bad block followed by a verifiable block: CorruptionException,
   * nothing is truncated") must hold for the dictionary block of the active segment: its records
   * were written and closed cleanly, so a flipped bit there must never make recovery cut them off.
   */
  @Test
  void aDamagedDictionaryBlockOfTheActiveSegmentIsNeverCutOffAsATornTail() throws IOException {
    fill(1000);
    Path active = active(dir);
    List<Block> blocks = blocks(active);
    assertThat(blocks.get(0).dictionary()).isTrue();
    assertThat(blocks.stream().filter(Block::zstd).count())
        .as(describe(blocks))
        .isGreaterThanOrEqualTo(3);
    long size = Files.size(active);
    Block dict = blocks.get(0);
    flipBit(active, dict.offset() + 24 + (dict.end() - dict.offset() - 24) / 2, 6);

    // Either the queue refuses to open (damage followed by valid blocks), or it opens with every
    // record still there; it must not drop the active segment's records as a torn tail.
    try (DocQueue q = DocQueue.open(dir, opts(true))) {
      assertThat(q.lastSequence())
          .as("records after the damaged dictionary block kept")
          .isEqualTo(model.size());
    } catch (CorruptionException e) {
      assertThat(e.file()).isEqualTo(active);
      assertThat(e.offset()).isEqualTo(44);
    }
    assertThat(Files.size(active)).as("active segment not truncated").isEqualTo(size);
    assertThat(QueueVerifier.verify(dir))
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.offset()).isEqualTo(44);
              assertThat(p.description()).doesNotContain("torn tail");
            });
  }

  /**
   * The verifier checks that a block of zrecords can be read with its own segment's dictionary (as
   * readers do), not with one it remembers from the segment before: here a segment's dictionary
   * block was replaced by a padding block of the same length (a valid block, footer fixed), so its
   * compressed records cannot be read, and the verifier must say so.
   */
  @Test
  void theVerifierReportsBlocksOfZrecordsWhoseSegmentDoesNotStartWithTheirDictionary()
      throws IOException {
    fill(1000);
    Path seg = sealedWithDictionary(1);
    List<Block> blocks = blocks(seg);
    Block dict = blocks.get(0);
    ByteBuffer padding =
        BlockBuilder.paddingBlock((int) (dict.end() - dict.offset()), dict.firstSequence());
    int paddingCrc = padding.getInt(0);
    write(seg, dict.offset(), padding);
    // Footer: the block crc digest over the new first block.
    CRC32C digest = new CRC32C();
    for (Block b : blocks) {
      int crc;
      if (b == dict) {
        crc = paddingCrc;
      } else {
        try (FileChannel ch = FileChannel.open(seg)) {
          crc = read(ch, b.offset(), 4).getInt(0);
        }
      }
      digest.update(ByteBuffer.allocate(4).putInt(0, crc));
    }
    long size = Files.size(seg);
    SegmentFooter old;
    try (FileChannel ch = FileChannel.open(seg)) {
      old = SegmentFooter.read(ch, seg, size - SegmentFormat.FOOTER_LENGTH);
    }
    SegmentFooter fixed =
        new SegmentFooter(
            old.recordCount(),
            old.firstSequence(),
            old.lastSequence(),
            old.blockCount(),
            old.blocksEnd(),
            Checksums.mask((int) digest.getValue()));
    write(seg, size - SegmentFormat.FOOTER_LENGTH, fixed.encode());

    Block zstd =
        blocks.stream()
            .filter(
                b -> {
                  try {
                    return b.zstd() && stored(b, 0).compressed();
                  } catch (IOException e) {
                    throw new RuntimeException(e);
                  }
                })
            .findFirst()
            .orElseThrow();
    try (DocQueue q = DocQueue.open(dir, opts(true))) {
      assertThatThrownBy(() -> q.reader().get(expected(zstd.firstSequence()).address()))
          .isInstanceOfSatisfying(
              CorruptionException.class, c -> assertThat(c.file()).isEqualTo(seg))
          .hasMessageContaining("not a dictionary block");
    }
    assertThat(QueueVerifier.verify(dir))
        .as("verifier on a segment whose blocks name a dictionary it does not hold")
        .anySatisfy(p -> assertThat(p.file()).isEqualTo(seg));
  }

  /**
   * A tailer started at a sequence skips the blocks before it by their headers alone. Those headers
   * are not verified, so one flipped bit in an earlier block's stored length can move the skip onto
   * a later block; in format 3 that is likely, since blocks of zrecords start on page boundaries
   * and many are exactly one page long. The tailer must then fail (or find its start), never hand
   * out records after a silent gap.
   */
  @Test
  void aTailerNeverSilentlySkipsRecordsWhenAnEarlierBlockHeaderIsDamaged() throws IOException {
    fill(1000);
    Path seg = sealedWithDictionary(0);
    List<Block> blocks = blocks(seg);
    // b1, then b2 exactly one page long starting on a page, then more blocks.
    int i = 1;
    while (i + 2 < blocks.size()
        && !(blocks.get(i).zrecords()
            && blocks.get(i + 1).offset() % PAGE == 0
            && blocks.get(i + 1).end() - blocks.get(i + 1).offset() == PAGE
            && blocks.get(i + 1).count() > 0
            && blocks.get(i).end() == blocks.get(i + 1).offset())) {
      i++;
    }
    assertThat(i + 2)
        .as("a one-page block after another in %s", describe(blocks))
        .isLessThan(blocks.size());
    Block b1 = blocks.get(i);
    Block b2 = blocks.get(i + 1);
    long storedLength;
    try (FileChannel ch = FileChannel.open(seg)) {
      storedLength = read(ch, b1.offset() + 4, 4).getInt(0);
    }
    assertThat(storedLength & PAGE).isZero();
    // Bit 12 of b1's stored length (byte 2 of the big-endian field at +4): b1 now seems one page
    // longer.
    flipBit(seg, b1.offset() + 6, 4);
    Expected start = expected(b2.firstSequence());
    try (DocQueue q = DocQueue.open(dir, opts(true))) {
      try (QueueTailer t = q.tailer(start.sequence())) {
        QueueRecord r;
        try {
          r = t.poll();
        } catch (CorruptionException e) {
          assertThat(e.file()).isEqualTo(seg);
          return; // the damage was noticed
        }
        assertThat(r).isNotNull();
        assertThat(r.sequence())
            .as(
                "first record from a tailer started at %d (b2 holds %d records)",
                start.sequence(), b2.count())
            .isEqualTo(start.sequence());
        check(r, start, "tailer");
      }
    }
  }

  /**
   * A full disk is not sticky (QueueWriter, SegmentAppender: "a next segment that cannot be created
   * is created later"): an append that hits it fails with {@code NoSpaceException} and appends go
   * on once there is space. That holds also when the disk fills up just as the writer seals the
   * segment early to start the next one with the freshly trained dictionary, with room for the
   * footer but not for the next segment's header.
   */
  @Test
  void aFullDiskWhenTheEarlySealCannotCreateTheNextSegmentIsANoSpaceExceptionAndAppendsGoOn()
      throws IOException {
    io.docstore.io.FaultInjectingFileSystem fs = new io.docstore.io.FaultInjectingFileSystem();
    QueueOptions o = options().fileSystem(fs).build();
    Random rnd = new Random(12);
    try (DocQueue q = DocQueue.open(dir, o)) {
      for (int i = 0; i < o.dictionarySamples(); i++) { // the last one trains the dictionary
        byte[] body = json(rnd, 300 + rnd.nextInt(900));
        Appended a = q.writer().append(i, Op.PUT, i, body);
        model.add(new Expected(i + 1, i, Op.PUT, i, body, a.address()));
      }
      q.writer().flush();
      assertThat(q.stats().segmentsSealed()).isZero();
      // Room for the footer of the early seal (56 bytes), not for the next segment's header (44).
      fs.setSpaceLimit(SegmentFormat.FOOTER_LENGTH + 10);
      byte[] body = json(rnd, 500);
      assertThatThrownBy(() -> q.writer().append(99, Op.PUT, 99, body))
          .isInstanceOf(io.docstore.io.NoSpaceException.class);
      fs.clearSpaceLimit();
      for (int i = 0; i < 100; i++) {
        byte[] b = json(rnd, 300 + rnd.nextInt(900));
        long seq = model.size() + 1;
        Appended a = q.writer().append(seq, Op.PUT, seq, b);
        assertThat(a.sequence()).isEqualTo(seq);
        model.add(new Expected(seq, seq, Op.PUT, seq, b, a.address()));
      }
      q.writer().flush();
      checkAll(q, model, 1, "after the full disk");
    }
    assertThat(QueueVerifier.verify(dir)).isEmpty();
  }
}
