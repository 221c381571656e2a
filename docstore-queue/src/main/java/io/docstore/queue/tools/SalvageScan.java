package io.docstore.queue.tools;

import static io.docstore.queue.format.SegmentFormat.FOOTER_LENGTH;

import io.docstore.io.CorruptionException;
import io.docstore.io.FileSystem;
import io.docstore.queue.Op;
import io.docstore.queue.block.BlockReader;
import io.docstore.queue.block.DecodedBlock;
import io.docstore.queue.format.Address;
import io.docstore.queue.format.SegmentFileName;
import io.docstore.queue.segment.SegmentFooter;
import io.docstore.queue.segment.SegmentHeader;
import io.docstore.queue.segment.SegmentScanner;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Walks every segment of a queue directory in sequence order and hands each record that verifies to
 * a {@link Visitor}, going on past damage: a stretch of a segment that fails its checksums (one
 * block, or several in a row, or the rest of the segment) is reported once as a {@link Damage},
 * between the records before it and the records after it, with the sequences it held. For the
 * offline rebuild of an index over a queue with damage in it ({@code docstore rebuild-index
 * --skip-damaged}). Read-only.
 *
 * <p>Run it on a queue nobody writes: the directory lock held, the active segment recovered (open
 * the queue first, as the store does).
 */
public final class SalvageScan {

  /**
   * A stretch of a segment whose records cannot be read: from {@code fromOffset} (where a block
   * failed) to {@code toOffset} (where the next block or footer that verifies starts, or the end of
   * the file), holding sequences {@code firstSequence..lastSequence}.
   */
  public record Damage(
      Path file,
      long segment,
      long fromOffset,
      long toOffset,
      long firstSequence,
      long lastSequence,
      String reason) {

    /** The number of records lost in it. */
    public long records() {
      return lastSequence - firstSequence + 1;
    }

    /** The address of the first record the damage holds (reading it fails). */
    public long startAddress() {
      return Address.of(segment, fromOffset, 0);
    }

    /** The lowest address a record after the damage can have. */
    public long endAddress() {
      return Address.of(segment, Math.min(toOffset, Address.MAX_SEGMENT_BYTES), 0);
    }

    /** Whether {@code address} names a record inside the damage. */
    public boolean contains(long address) {
      return address >= startAddress() && address < endAddress();
    }

    @Override
    public String toString() {
      return file
          + " @"
          + fromOffset
          + ".."
          + toOffset
          + ": sequences "
          + firstSequence
          + ".."
          + lastSequence
          + " ("
          + records()
          + " records) unreadable: "
          + reason;
    }
  }

  /** What the walk hands out, in sequence order. */
  public interface Visitor {

    /** A record that verified. */
    void record(long id, long sequence, Op op, long address) throws IOException;

    /** A damaged stretch, after the records before it and before the records after it. */
    void damaged(Damage damage) throws IOException;
  }

  private final FileSystem fs;
  private final Path dir;
  private final long lastSequence;
  private final Visitor visitor;
  private final List<Damage> found = new ArrayList<>();
  private final BlockReader reader = new BlockReader(64 * 1024, true);
  private final DecodedBlock block = new DecodedBlock();

  private SalvageScan(FileSystem fs, Path dir, long lastSequence, Visitor visitor) {
    this.fs = fs;
    this.dir = dir;
    this.lastSequence = lastSequence;
    this.visitor = visitor;
  }

  /**
   * Walks {@code dir} up to {@code lastSequence} (the queue's last record: what recovery found).
   *
   * @return every damaged stretch, in order
   * @throws CorruptionException where the walk cannot go on: a segment header that does not verify
   *     or names another segment, or sequences that do not continue from one segment to the next
   *     (the queue does not open with such damage either)
   */
  public static List<Damage> walk(FileSystem fs, Path dir, long lastSequence, Visitor visitor)
      throws IOException {
    SalvageScan s = new SalvageScan(fs, dir, lastSequence, visitor);
    List<SegmentFileName> names = new ArrayList<>();
    for (Path p : fs.list(dir)) {
      SegmentFileName.parse(p).ifPresent(names::add);
    }
    names.sort((a, b) -> Long.compare(a.segment(), b.segment()));
    long next = -1;
    for (int i = 0; i < names.size() && next <= lastSequence; i++) {
      SegmentFileName after = i + 1 < names.size() ? names.get(i + 1) : null;
      next = s.segment(names.get(i), after, next);
    }
    return s.found;
  }

  /** Where damage began and what was expected there, until the walk finds data that verifies. */
  private record Open(long offset, long firstSequence, String reason) {}

  /** Walks one segment; returns the sequence the next segment must start with. */
  private long segment(SegmentFileName name, SegmentFileName after, long expected)
      throws IOException {
    Path path = name.in(dir);
    try (FileChannel ch = fs.openRead(path)) {
      long size = ch.size();
      SegmentScanner scan = new SegmentScanner(path, ch, size, reader);
      if (scan.header().segment() != name.segment()) {
        throw new CorruptionException(path, 0, "header names segment " + scan.header().segment());
      }
      if (expected >= 0 && scan.header().baseSequence() != expected) {
        throw new CorruptionException(
            path,
            0,
            "starts at sequence "
                + scan.header().baseSequence()
                + " but the previous segment ends at "
                + (expected - 1));
      }
      Open open = null;
      while (true) {
        long at = scan.position();
        long sequence = scan.nextSequence();
        SegmentScanner.Kind kind;
        try {
          kind = scan.next(block);
        } catch (CorruptionException e) {
          if (open == null) {
            open = new Open(at, sequence, e.getMessage());
          }
          if (scan.skipDamage()) {
            continue; // to the next block (or footer) that verifies
          }
          long last = lastOf(path, ch, size, name, after);
          close(open, name, path, size, last);
          return last + 1;
        }
        if (open != null) {
          close(
              open,
              name,
              path,
              at,
              switch (kind) {
                case BLOCK -> block.firstSequence() - 1;
                case FOOTER -> scan.footer().lastSequence();
                case END -> scan.nextSequence() - 1;
              });
          open = null;
        }
        switch (kind) {
          case BLOCK -> {
            for (int i = 0; i < block.count(); i++) {
              long s = block.firstSequence() + i;
              if (s > lastSequence) {
                return s;
              }
              visitor.record(
                  block.id(i),
                  s,
                  Op.of(block.op(i)),
                  Address.of(name.segment(), block.offset(), i));
            }
          }
          case FOOTER -> {
            return scan.footer().lastSequence() + 1;
          }
          case END -> {
            return scan.nextSequence();
          }
        }
      }
    }
  }

  private void close(Open open, SegmentFileName name, Path path, long to, long last)
      throws IOException {
    last = Math.min(last, lastSequence);
    if (last < open.firstSequence()) {
      return; // nothing that held records (a damaged tail after the last record)
    }
    Damage d =
        new Damage(
            path, name.segment(), open.offset(), to, open.firstSequence(), last, open.reason());
    found.add(d);
    visitor.damaged(d);
  }

  /**
   * The last sequence of a segment whose end is damaged: its footer's when that verifies, else the
   * one before the next segment's first, else the queue's last.
   */
  private long lastOf(
      Path path, FileChannel ch, long size, SegmentFileName name, SegmentFileName after)
      throws IOException {
    if (name.sealed() && size >= FOOTER_LENGTH) {
      try {
        return SegmentFooter.read(ch, path, size - FOOTER_LENGTH).lastSequence();
      } catch (CorruptionException e) {
        // the footer is damaged too: ask the next segment
      }
    }
    if (after != null) {
      Path next = after.in(dir);
      try (FileChannel n = fs.openRead(next)) {
        return SegmentHeader.read(n, next).baseSequence() - 1;
      } catch (CorruptionException e) {
        // and its header is damaged too: the queue would not open
      }
    }
    return lastSequence;
  }
}
