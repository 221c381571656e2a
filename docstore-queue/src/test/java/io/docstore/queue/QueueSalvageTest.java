package io.docstore.queue;

import static io.docstore.queue.V3Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.FileSystem;
import io.docstore.queue.format.SegmentFileName;
import io.docstore.queue.format.SegmentFormat;
import io.docstore.queue.tools.SalvageScan;
import io.docstore.queue.tools.SalvageScan.Damage;
import io.docstore.queue.tools.SegmentCopyCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The read-only halves of the two repairs of a damaged sealed segment: {@link SalvageScan} (every
 * record that verifies, in order, and each damaged stretch with the sequences it held, between the
 * records before and after it) and {@link SegmentCopyCheck} (which copy may replace the damaged
 * file).
 */
class QueueSalvageTest extends DamagedQueueTestBase {

  private static final FileSystem FS = FileSystem.real();

  /** What a walk handed out, in order: sequences, and -1 - index for each damage. */
  private record Walk(List<Long> events, List<Long> addresses, List<Damage> damage) {}

  private Walk walk() throws IOException {
    List<Long> events = new ArrayList<>();
    List<Long> addresses = new ArrayList<>();
    List<Damage> seen = new ArrayList<>();
    List<Damage> damage =
        SalvageScan.walk(
            FS,
            dir,
            model.size(),
            new SalvageScan.Visitor() {
              @Override
              public void record(long id, long sequence, Op op, long address) {
                assertThat(id).isEqualTo(expected(sequence).id());
                events.add(sequence);
                addresses.add(address);
              }

              @Override
              public void damaged(Damage d) {
                events.add(-1L - seen.size());
                seen.add(d);
              }
            });
    assertThat(seen).isEqualTo(damage);
    return new Walk(events, addresses, damage);
  }

  @Test
  void twoDamagedBlocksAreTwoStretchesBetweenTheRecordsAroundThem() throws IOException {
    fill(600);
    Path seg = sealedWithDictionary(0);
    List<Block> blocks = blocks(seg);
    assertThat(blocks.size()).isGreaterThan(6);
    Block a = blocks.get(2);
    Block b = blocks.get(5);
    flipBit(seg, (a.offset() + a.end()) / 2, 3);
    flipBit(seg, (b.offset() + b.end()) / 2, 3);

    Walk w = walk();
    assertThat(w.damage()).hasSize(2);
    for (int i = 0; i < 2; i++) {
      Block blk = i == 0 ? a : b;
      Damage d = w.damage().get(i);
      assertThat(d.file()).isEqualTo(seg);
      assertThat(d.segment()).isEqualTo(number(seg));
      assertThat(d.fromOffset()).isEqualTo(blk.offset());
      assertThat(d.toOffset()).isEqualTo(blk.end());
      assertThat(d.firstSequence()).isEqualTo(blk.firstSequence());
      assertThat(d.lastSequence()).isEqualTo(blk.firstSequence() + blk.count() - 1);
      assertThat(d.contains(expected(blk.firstSequence()).address())).isTrue();
      assertThat(d.contains(expected(blk.firstSequence() + blk.count()).address())).isFalse();
      // Handed out in its place: after the record before it, before the record after it.
      int at = w.events().indexOf(-1L - i);
      assertThat(w.events().get(at - 1)).isEqualTo(d.firstSequence() - 1);
      assertThat(w.events().get(at + 1)).isEqualTo(d.lastSequence() + 1);
    }
    List<Long> expectedSequences = new ArrayList<>();
    for (Expected e : model) {
      if (!a.holds(e.sequence()) && !b.holds(e.sequence())) {
        expectedSequences.add(e.sequence());
      }
    }
    assertThat(w.events().stream().filter(s -> s > 0).toList()).isEqualTo(expectedSequences);
    for (int i = 0; i < expectedSequences.size(); i++) {
      assertThat(w.addresses().get(i)).isEqualTo(expected(expectedSequences.get(i)).address());
    }
  }

  @Test
  void aDamagedDictionaryLosesTheRestOfItsSegmentAndNothingElse() throws IOException {
    fill(600);
    Path seg = sealedWithDictionary(0);
    List<Block> blocks = blocks(seg);
    assertThat(blocks.get(0).dictionary()).isTrue();
    flipBit(seg, (blocks.get(0).offset() + blocks.get(0).end()) / 2, 1);
    long first = blocks.get(1).firstSequence();
    Block lastBlock = blocks.get(blocks.size() - 1);
    long last = lastBlock.firstSequence() + lastBlock.count() - 1;

    Walk w = walk();
    assertThat(w.damage()).hasSize(1);
    Damage d = w.damage().get(0);
    assertThat(d.fromOffset()).isEqualTo(SegmentFormat.HEADER_LENGTH);
    assertThat(d.toOffset()).isEqualTo(Files.size(seg) - SegmentFormat.FOOTER_LENGTH);
    assertThat(d.firstSequence()).isEqualTo(first);
    assertThat(d.lastSequence()).isEqualTo(last);
    assertThat(w.events().stream().filter(s -> s > 0).count())
        .isEqualTo(model.size() - (last - first + 1));
  }

  @Test
  void onlyACopyThatVerifiesAndHasTheSameSegmentAndLayoutPasses() throws IOException {
    fill(600);
    Path seg = sealedWithDictionary(0);
    SegmentFileName name = SegmentFileName.parse(seg).orElseThrow();
    Path good = dir.resolve("good.copy");
    Files.copy(seg, good);
    Path next = new SegmentFileName(name.segment() + 1, true).in(dir);
    List<Block> blocks = blocks(seg);
    flipBit(seg, (blocks.get(3).offset() + blocks.get(3).end()) / 2, 5);

    SegmentCopyCheck.Local local = SegmentCopyCheck.describe(FS, dir, name);
    assertThat(local.header()).isNotNull();
    assertThat(local.footer()).isNotNull();
    assertThat(local.blocks()).hasSize(blocks.size() - 1);
    assertThat(SegmentCopyCheck.judge(FS, good, local)).isNull();

    Path alsoDamaged = dir.resolve("also-damaged.copy");
    Files.copy(good, alsoDamaged);
    flipBit(alsoDamaged, (blocks.get(5).offset() + blocks.get(5).end()) / 2, 5);
    assertThat(SegmentCopyCheck.judge(FS, alsoDamaged, local)).contains("does not verify");
    assertThat(SegmentCopyCheck.judge(FS, next, local)).contains("header names segment");

    // The local footer damaged as well: the sequences come from the header and the next segment,
    // and the blocks that still verify must lie where they lie in the copy.
    flipBit(seg, Files.size(seg) - SegmentFormat.FOOTER_LENGTH + 20, 2);
    local = SegmentCopyCheck.describe(FS, dir, name);
    assertThat(local.footer()).isNull();
    assertThat(local.firstSequence()).isEqualTo(blocks.get(1).firstSequence());
    Block last = blocks.get(blocks.size() - 1);
    assertThat(local.lastSequence()).isEqualTo(last.firstSequence() + last.count() - 1);
    assertThat(SegmentCopyCheck.judge(FS, good, local)).isNull();

    // Nothing left to say which segment it is: refused, whatever the copy.
    Path nextCopy = dir.resolve("next.copy");
    Files.move(next, nextCopy, StandardCopyOption.ATOMIC_MOVE);
    try {
      local = SegmentCopyCheck.describe(FS, dir, name);
      assertThat(local.lastSequence()).isEqualTo(-1);
      assertThat(SegmentCopyCheck.judge(FS, good, local)).contains("no copy can be shown");
    } finally {
      Files.move(nextCopy, next, StandardCopyOption.ATOMIC_MOVE);
    }
  }
}
