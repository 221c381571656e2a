package io.docstore.queue.tools;

import io.docstore.io.CorruptionException;
import io.docstore.io.FileSystem;
import io.docstore.queue.Op;
import io.docstore.queue.RecordBody;
import io.docstore.queue.block.BlockReader;
import io.docstore.queue.block.DecodedBlock;
import io.docstore.queue.format.BlockFormat;
import io.docstore.queue.format.SegmentFileName;
import io.docstore.queue.format.SegmentFormat;
import io.docstore.queue.segment.SegmentScanner;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks every segment of a queue directory in full: header, every block (checksum, decompression,
 * offset table, every record's own checksum, sequence continuity), the footer of sealed segments
 * (and that it matches the blocks), segment numbering and the sequence chain across segments.
 * Read-only.
 *
 * <p>Run it on a stopped queue: against a running one, a block being written at the end of the
 * active segment can show up as a torn tail. A torn tail of the active segment is reported (it is
 * what recovery would cut off) with the words "torn tail".
 */
public final class QueueVerifier {

  private QueueVerifier() {}

  /** Problems found, in file order; empty means healthy. */
  public static List<Problem> verify(Path dir) throws IOException {
    return verify(FileSystem.real(), dir);
  }

  public static List<Problem> verify(FileSystem fs, Path dir) throws IOException {
    List<Problem> problems = new ArrayList<>();
    List<SegmentFileName> names = new ArrayList<>();
    for (Path p : fs.list(dir)) {
      SegmentFileName.parse(p).ifPresent(names::add);
    }
    names.sort((a, b) -> Long.compare(a.segment(), b.segment()));
    BlockReader reader = new BlockReader(64 * 1024, true);
    long previousNumber = -1;
    long previousLast = -1;
    for (int i = 0; i < names.size(); i++) {
      SegmentFileName name = names.get(i);
      Path path = name.in(dir);
      if (previousNumber >= 0 && name.segment() != previousNumber + 1) {
        problems.add(
            new Problem(
                path,
                0,
                name.segment() == previousNumber
                    ? "segment exists both active and sealed"
                    : "segments "
                        + (previousNumber + 1)
                        + ".."
                        + (name.segment() - 1)
                        + " are missing"));
      }
      if (!name.sealed() && i != names.size() - 1) {
        problems.add(new Problem(path, 0, "active segment is not the newest segment"));
      }
      previousNumber = name.segment();
      previousLast = verifySegment(fs, path, name, previousLast, reader, problems);
    }
    return problems;
  }

  /**
   * Checks one segment file in full on its own, as {@link #verify} does (not its place in the chain
   * of segments): {@code name} says which segment the file must be and whether it must be sealed,
   * whatever the file is called (a copy being judged before it replaces a damaged one).
   */
  public static List<Problem> verifySegment(FileSystem fs, Path path, SegmentFileName name)
      throws IOException {
    List<Problem> problems = new ArrayList<>();
    verifySegment(fs, path, name, -1, new BlockReader(64 * 1024, true), problems);
    return problems;
  }

  /** Returns the segment's last sequence, or -1 if it could not be established. */
  private static long verifySegment(
      FileSystem fs,
      Path path,
      SegmentFileName name,
      long previousLast,
      BlockReader reader,
      List<Problem> problems)
      throws IOException {
    try (FileChannel ch = fs.openRead(path)) {
      SegmentScanner scan;
      try {
        scan = new SegmentScanner(path, ch, ch.size(), reader);
      } catch (IOException e) {
        problems.add(
            new Problem(path, e instanceof CorruptionException c ? c.offset() : 0, e.getMessage()));
        return -1;
      }
      if (scan.header().segment() != name.segment()) {
        problems.add(new Problem(path, 0, "header names segment " + scan.header().segment()));
      }
      if (previousLast >= 0 && scan.header().baseSequence() != previousLast + 1) {
        problems.add(
            new Problem(
                path,
                0,
                "starts at sequence "
                    + scan.header().baseSequence()
                    + " but the previous segment ends at "
                    + previousLast));
      }
      DecodedBlock block = new DecodedBlock();
      boolean damaged = false;
      while (true) {
        SegmentScanner.Kind kind;
        try {
          kind = scan.next(block);
        } catch (CorruptionException e) {
          // As recovery decides: in the active segment, damage past the durable point that the
          // sync marks after it claim is a torn tail (pages written back out of order included).
          boolean middle = name.sealed() || scan.durableClaimAfterDamage() > scan.position();
          problems.add(
              new Problem(
                  path,
                  scan.position(),
                  (middle
                          ? ""
                          : "torn tail of "
                              + (ch.size() - scan.position())
                              + " bytes (recovery truncates it): ")
                      + e.getMessage()));
          // Go on past a block damaged in itself, to report every damaged place; not past damage
          // that every later block depends on (the first block: a segment's dictionary), which
          // would only repeat it.
          if (middle
              && e.offset() == scan.position()
              && scan.position() > SegmentFormat.HEADER_LENGTH
              && scan.skipDamage()) {
            damaged = true;
            continue;
          }
          return -1;
        }
        int version = scan.header().version();
        if (kind == SegmentScanner.Kind.BLOCK
            && !block.compressed()
            && !block.dictionary()
            && !block.padding()
            && block.syncedEnd() < 0
            && block.recordChecksums() != version >= 2) {
          problems.add(
              new Problem(
                  path,
                  block.offset(),
                  "uncompressed block "
                      + (block.recordChecksums() ? "with" : "without")
                      + " record checksums in a version "
                      + version
                      + " segment"));
        }
        if (kind == SegmentScanner.Kind.BLOCK
            && (block.zstd() || block.dictionary() || block.padding())
            && version < 3) {
          problems.add(
              new Problem(
                  path,
                  block.offset(),
                  (block.zstd()
                          ? "block of records stored one by one"
                          : block.dictionary() ? "dictionary block" : "padding block")
                      + " in a version "
                      + version
                      + " segment"));
        }
        if (kind == SegmentScanner.Kind.BLOCK && block.syncedEnd() >= 0 && version < 4) {
          problems.add(
              new Problem(path, block.offset(), "sync mark in a version " + version + " segment"));
        }
        if (kind == SegmentScanner.Kind.BLOCK && block.splitRecords() > 0 && version < 8) {
          problems.add(
              new Problem(
                  path,
                  block.offset(),
                  "RELOCATED record stored split in a version " + version + " segment"));
        }
        if (kind == SegmentScanner.Kind.BLOCK) {
          checkRecordKinds(path, block, version, problems);
        }
        if (kind == SegmentScanner.Kind.END) {
          if (name.sealed()) {
            problems.add(new Problem(path, scan.position(), "sealed segment has no footer"));
          }
          return damaged ? -1 : scan.nextSequence() - 1;
        }
        if (kind == SegmentScanner.Kind.FOOTER) {
          if (!name.sealed()) {
            problems.add(
                new Problem(
                    path,
                    scan.footer().blocksEnd(),
                    "active segment has a footer: an interrupted seal (recovery finishes it)"));
          }
          return damaged ? -1 : scan.nextSequence() - 1;
        }
      }
    }
  }

  /**
   * Record kinds other than PUT and DELETE belong to version 5 segments; a RELOCATED record must
   * name an original op it can stand for.
   */
  private static void checkRecordKinds(
      Path path, DecodedBlock block, int version, List<Problem> problems) {
    for (int i = 0; i < block.count(); i++) {
      byte code = block.op(i);
      if (code == BlockFormat.OP_PUT || code == BlockFormat.OP_DELETE) {
        continue;
      }
      Op op = Op.of(code);
      String bad = null;
      if (version < 5) {
        bad = op + " record in a version " + version + " segment";
      } else {
        try {
          RecordBody.originalOp(op, block.raw(), block.bodyStart(i), block.bodyLength(i));
        } catch (IllegalArgumentException e) {
          bad = e.getMessage();
        }
      }
      if (bad != null) {
        problems.add(
            new Problem(
                path,
                block.offset(),
                "record " + i + " (sequence " + (block.firstSequence() + i) + "): " + bad));
      }
    }
  }
}
