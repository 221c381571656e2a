package io.docstore.queue.tools;

import static io.docstore.queue.format.SegmentFormat.FOOTER_LENGTH;
import static io.docstore.queue.format.SegmentFormat.HEADER_LENGTH;

import io.docstore.io.CorruptionException;
import io.docstore.io.FileSystem;
import io.docstore.queue.block.BlockReader;
import io.docstore.queue.block.DecodedBlock;
import io.docstore.queue.format.SegmentFileName;
import io.docstore.queue.segment.SegmentFooter;
import io.docstore.queue.segment.SegmentHeader;
import io.docstore.queue.segment.SegmentScanner;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Judges a copy of a sealed segment (a replica's, or the primary's) that is to replace a damaged
 * local one ({@code docstore repair-segments}). The copy must verify in full, be the same segment
 * (number, first and last sequence) and have the same layout, so that every address the index holds
 * into the segment still names the same record: the same header, the same footer (block count, end
 * of the blocks, digest of every block's checksum) where the local footer is intact, and every
 * local block that still verifies at the same offset, with the same length, first sequence and
 * checksum. Read-only.
 */
public final class SegmentCopyCheck {

  /** A block that verifies: where it lies, its first sequence and its stored checksum. */
  public record Block(long offset, long end, long firstSequence, int crc) {}

  /**
   * What a damaged local segment still says about itself: its header and footer where they verify
   * (else null), the sequences it must hold (from them, else from the neighbouring segments; -1
   * where nothing says), and the blocks that still verify.
   */
  public record Local(
      SegmentFileName name,
      SegmentHeader header,
      SegmentFooter footer,
      long firstSequence,
      long lastSequence,
      List<Block> blocks) {}

  private SegmentCopyCheck() {}

  /** Reads what the local segment {@code name} of {@code queueDir} still says about itself. */
  public static Local describe(FileSystem fs, Path queueDir, SegmentFileName name)
      throws IOException {
    Path path = name.in(queueDir);
    SegmentHeader header = null;
    SegmentFooter footer = null;
    List<Block> blocks = List.of();
    try (FileChannel ch = fs.openRead(path)) {
      long size = ch.size();
      try {
        header = SegmentHeader.read(ch, path);
      } catch (CorruptionException e) {
        // damaged: the copy's header is then judged by the sequences alone
      }
      if (size >= HEADER_LENGTH + FOOTER_LENGTH) {
        try {
          footer = SegmentFooter.read(ch, path, size - FOOTER_LENGTH);
        } catch (CorruptionException e) {
          // damaged (or cut): the sequences come from the neighbours
        }
      }
      if (header != null) {
        blocks = blocks(path, ch, size, true);
      }
    }
    long first =
        header != null
            ? header.baseSequence()
            : footer != null ? footer.firstSequence() : lastOfPrevious(fs, queueDir, name) + 1;
    long last = footer != null ? footer.lastSequence() : firstOfNext(fs, queueDir, name) - 1;
    return new Local(name, header, footer, first <= 0 ? -1 : first, last < 0 ? -1 : last, blocks);
  }

  /**
   * Whether {@code candidate} may replace the local segment {@code local} describes.
   *
   * @return null if it may, else why not (one line)
   */
  public static String judge(FileSystem fs, Path candidate, Local local) throws IOException {
    List<Problem> problems = QueueVerifier.verifySegment(fs, candidate, local.name().asSealed());
    if (!problems.isEmpty()) {
      return "the copy does not verify ("
          + problems.size()
          + " problem(s), first at offset "
          + problems.get(0).offset()
          + ": "
          + problems.get(0).description()
          + ")";
    }
    SegmentHeader header;
    SegmentFooter footer;
    Map<Long, Block> blocks = new HashMap<>();
    try (FileChannel ch = fs.openRead(candidate)) {
      long size = ch.size();
      header = SegmentHeader.read(ch, candidate);
      footer = SegmentFooter.read(ch, candidate, size - FOOTER_LENGTH);
      for (Block b : blocks(candidate, ch, size, false)) {
        blocks.put(b.offset(), b);
      }
    }
    if (local.header() != null && !local.header().equals(header)) {
      return "the copy's header " + header + " differs from the local one " + local.header();
    }
    if (local.footer() != null) {
      if (!local.footer().equals(footer)) {
        return "the copy's footer "
            + footer
            + " differs from the local one "
            + local.footer()
            + ": another layout, so the index's addresses into this segment would name other records";
      }
    } else if (local.firstSequence() < 0 || local.lastSequence() < 0) {
      return "the local footer is damaged and neither the local header nor the neighbouring"
          + " segments say which sequences the segment holds, so no copy can be shown to be this"
          + " segment";
    } else if (footer.firstSequence() != local.firstSequence()
        || footer.lastSequence() != local.lastSequence()) {
      return "the copy holds sequences "
          + footer.firstSequence()
          + ".."
          + footer.lastSequence()
          + ", the local segment "
          + local.firstSequence()
          + ".."
          + local.lastSequence();
    }
    for (Block b : local.blocks()) {
      Block c = blocks.get(b.offset());
      if (!b.equals(c)) {
        return "the local block at offset "
            + b.offset()
            + " ("
            + b
            + ") verifies but the copy has "
            + (c == null ? "no block there" : c)
            + ": another layout";
      }
    }
    return null;
  }

  /**
   * The blocks of a segment that verify, in order; past damage when {@code skipDamage} (else the
   * first failure ends the list: for a copy that verified in full, there is none).
   */
  private static List<Block> blocks(Path path, FileChannel ch, long size, boolean skipDamage)
      throws IOException {
    List<Block> out = new ArrayList<>();
    SegmentScanner scan = new SegmentScanner(path, ch, size, new BlockReader(64 * 1024, true));
    DecodedBlock block = new DecodedBlock();
    while (true) {
      SegmentScanner.Kind kind;
      try {
        kind = scan.next(block);
      } catch (CorruptionException e) {
        if (skipDamage && scan.skipDamage()) {
          continue;
        }
        return out;
      }
      if (kind != SegmentScanner.Kind.BLOCK) {
        return out;
      }
      out.add(new Block(block.offset(), block.end(), block.firstSequence(), block.crc()));
    }
  }

  /** The last sequence of the segment before {@code name} by its footer, or -2 if unknown. */
  private static long lastOfPrevious(FileSystem fs, Path queueDir, SegmentFileName name)
      throws IOException {
    if (name.segment() <= 1) {
      return 0; // the first segment starts at sequence 1
    }
    Path previous = new SegmentFileName(name.segment() - 1, true).in(queueDir);
    if (!fs.exists(previous)) {
      return -2;
    }
    try (FileChannel ch = fs.openRead(previous)) {
      return SegmentFooter.read(ch, previous, ch.size() - FOOTER_LENGTH).lastSequence();
    } catch (CorruptionException e) {
      return -2;
    }
  }

  /** The first sequence of the segment after {@code name} by its header, or -1 if unknown. */
  private static long firstOfNext(FileSystem fs, Path queueDir, SegmentFileName name)
      throws IOException {
    for (boolean sealed : new boolean[] {true, false}) {
      Path next = new SegmentFileName(name.segment() + 1, sealed).in(queueDir);
      if (fs.exists(next)) {
        try (FileChannel ch = fs.openRead(next)) {
          return SegmentHeader.read(ch, next).baseSequence();
        } catch (CorruptionException e) {
          return -1;
        }
      }
    }
    return -1;
  }
}
