package io.docstore.queue.segment;

import static io.docstore.queue.format.SegmentFormat.FOOTER_LENGTH;
import static io.docstore.queue.format.SegmentFormat.HEADER_LENGTH;

import io.docstore.io.AtomicFiles;
import io.docstore.io.CorruptionException;
import io.docstore.io.FileSystem;
import io.docstore.io.WritableFile;
import io.docstore.queue.block.BlockReader;
import io.docstore.queue.block.DecodedBlock;
import io.docstore.queue.format.BlockFormat;
import io.docstore.queue.format.SegmentFileName;
import io.docstore.queue.format.SegmentFormat;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens a queue directory: registers the sealed segments (header and footer checked, blocks left to
 * be verified lazily on read), scans the active segment in full, truncates its torn tail, finishes
 * an interrupted seal, and returns an appender positioned at the end.
 *
 * <p>Upgrade: an active segment written in an older format version is sealed (or, holding no block,
 * replaced by an empty one), so that every block appended goes to a segment of the version this
 * build writes and a segment never mixes versions.
 *
 * <p>Torn tail policy: damage in the active segment past its durable point is a torn tail, cut off
 * (logged at WARN, counted): after a power loss, pages written since the last force may survive or
 * not in any order, so verifiable blocks may follow it. The durable point is the largest length a
 * surviving sync mark claims (format 4). Damage before it, any damage in a sealed segment, a gap in
 * segment numbers or sequences: {@link CorruptionException}, never truncated.
 */
public final class SegmentRecovery {

  private static final Logger LOG = LoggerFactory.getLogger(SegmentRecovery.class);

  /** The state a queue opens with. */
  public record Recovered(SegmentSet segments, SegmentAppender appender, long lastSequence) {}

  private SegmentRecovery() {}

  public static Recovered open(
      FileSystem fs, Path dir, QueueCounters counters, long segmentSize, int expectedBlockBytes)
      throws IOException {
    fs.createDirectories(dir);
    return open(fs, dir, counters, segmentSize, expectedBlockBytes, false);
  }

  /**
   * Opens a queue directory for reading only: the same checks, but nothing on disk changes. A torn
   * tail is left in place (readers stop before it), an interrupted seal is not finished, an
   * incompletely created segment is ignored, an older version's active segment is not sealed, and
   * no segment is created. The result has no appender.
   */
  public static Recovered openReadOnly(
      FileSystem fs, Path dir, QueueCounters counters, int expectedBlockBytes) throws IOException {
    return open(fs, dir, counters, Long.MAX_VALUE, expectedBlockBytes, true);
  }

  private static Recovered open(
      FileSystem fs,
      Path dir,
      QueueCounters counters,
      long segmentSize,
      int expectedBlockBytes,
      boolean readOnly)
      throws IOException {
    List<SegmentFileName> names = new ArrayList<>();
    for (Path p : fs.list(dir)) {
      SegmentFileName.parse(p).ifPresent(names::add);
    }
    names.sort((a, b) -> Long.compare(a.segment(), b.segment()));
    SegmentSet segments = new SegmentSet();
    BlockReader reader = new BlockReader(expectedBlockBytes, true);
    SegmentAppender appender = null;
    int activeVersion = SegmentFormat.VERSION;
    long lastSequence = 0;
    long expectedNumber = names.isEmpty() ? 1 : names.get(0).segment();
    try {
      for (int i = 0; i < names.size(); i++) {
        SegmentFileName name = names.get(i);
        Path path = name.in(dir);
        boolean last = i == names.size() - 1;
        if (name.segment() != expectedNumber) {
          throw new CorruptionException(
              path, 0, "segment " + expectedNumber + " is missing (found " + name.segment() + ")");
        }
        if (i + 1 < names.size() && names.get(i + 1).segment() == name.segment()) {
          throw new CorruptionException(
              path, 0, "segment " + name.segment() + " exists both active and sealed");
        }
        expectedNumber++;
        if (!name.sealed()
            && last
            && fs.size(path) < HEADER_LENGTH + BlockFormat.HEADER_LENGTH
            && tornCreation(fs, path)) {
          if (readOnly) {
            break; // not a segment yet: nothing in it to read
          }
          long dropped = fs.size(path);
          LOG.warn("{}: dropping an incompletely created segment ({} bytes)", path, dropped);
          counters.tornTailBytesDropped.add(dropped);
          fs.delete(path);
          fs.syncDirectory(dir);
          expectedNumber--;
          break;
        }
        FileChannel ch = fs.openRead(path);
        try {
          if (name.sealed()) {
            SegmentInfo info = openSealed(path, ch, name.segment(), lastSequence);
            segments.add(info);
            lastSequence = info.lastSequence();
          } else {
            if (!last) {
              throw new CorruptionException(path, 0, "active segment is not the newest segment");
            }
            Active a =
                recoverActive(
                    fs, dir, path, ch, name.segment(), lastSequence, reader, counters, readOnly);
            if (!readOnly
                && a.version < SegmentFormat.VERSION
                && a.sealedPath == null
                && a.blockCount == 0) {
              // Replaced atomically by a header of the current version (same number and base): a
              // crash leaves the old file or the new one, never neither.
              LOG.info(
                  "{}: replacing an empty version {} active segment with a version {} one",
                  path,
                  a.version,
                  SegmentFormat.VERSION);
              ch.close();
              AtomicFiles.publish(
                  fs, path, new SegmentHeader(name.segment(), a.base).encode().array());
              ch = fs.openRead(path);
              a =
                  new Active(
                      a.base,
                      HEADER_LENGTH,
                      a.lastSequence,
                      new CRC32C(),
                      0,
                      null,
                      SegmentFormat.VERSION);
            }
            if (a.sealedPath != null || readOnly) {
              if (a.sealedPath != null && !a.sealedPath.equals(path)) {
                ch.close();
                ch = fs.openRead(a.sealedPath);
              }
              SegmentInfo info =
                  new SegmentInfo(
                      name.segment(),
                      a.base,
                      a.sealedPath != null ? a.sealedPath : path,
                      ch,
                      a.blocksEnd,
                      a.lastSequence,
                      a.sealedPath != null);
              segments.add(info);
            } else {
              SegmentInfo info =
                  new SegmentInfo(
                      name.segment(), a.base, path, ch, a.blocksEnd, a.lastSequence, false);
              segments.add(info);
              WritableFile file = fs.openAppend(path);
              appender =
                  new SegmentAppender(
                      fs, dir, segments, counters, segmentSize, file, info, a.digest, a.blockCount);
              activeVersion = a.version;
            }
            lastSequence = a.lastSequence;
          }
        } catch (IOException | RuntimeException e) {
          ch.close();
          throw e;
        }
      }
      if (readOnly) {
        return new Recovered(segments, null, lastSequence);
      }
      if (appender == null) {
        appender =
            SegmentAppender.createFirst(
                fs, dir, segments, counters, segmentSize, expectedNumber, lastSequence + 1);
      } else if ((appender.position() >= segmentSize || activeVersion < SegmentFormat.VERSION)
          && segments.last().lastSequence() >= segments.last().baseSequence()) {
        if (activeVersion < SegmentFormat.VERSION) {
          LOG.info(
              "{}: sealing a version {} active segment; new blocks go to a version {} segment",
              segments.last().path(),
              activeVersion,
              SegmentFormat.VERSION);
        }
        try {
          appender.roll();
        } catch (io.docstore.io.NoSpaceException e) {
          counters.rollsPostponed.increment(); // the writer retries before its first block
        }
      }
      return new Recovered(segments, appender, lastSequence);
    } catch (IOException | RuntimeException e) {
      if (appender != null) {
        appender.close();
      }
      segments.closeAll();
      throw e;
    }
  }

  /** A sealed segment: header and footer verified; blocks are verified when read. */
  private static SegmentInfo openSealed(Path path, FileChannel ch, long number, long previousLast)
      throws IOException {
    SegmentHeader h = SegmentHeader.read(ch, path);
    checkHeader(path, h, number, previousLast);
    long size = ch.size();
    if (size < HEADER_LENGTH + FOOTER_LENGTH) {
      throw new CorruptionException(
          path, size, "sealed segment of " + size + " bytes has no room for a footer");
    }
    SegmentFooter f = SegmentFooter.read(ch, path, size - FOOTER_LENGTH);
    if (f.firstSequence() != h.baseSequence()) {
      throw new CorruptionException(
          path,
          size - FOOTER_LENGTH,
          "footer's first sequence "
              + f.firstSequence()
              + " differs from the header's "
              + h.baseSequence());
    }
    return new SegmentInfo(
        number, h.baseSequence(), path, ch, f.blocksEnd(), f.lastSequence(), true, f.reclaimed());
  }

  private static void checkHeader(Path path, SegmentHeader h, long number, long previousLast)
      throws CorruptionException {
    if (h.segment() != number) {
      throw new CorruptionException(
          path, 0, "header names segment " + h.segment() + " but the file name says " + number);
    }
    if (previousLast > 0 && h.baseSequence() != previousLast + 1) {
      throw new CorruptionException(
          path,
          0,
          "segment starts at sequence "
              + h.baseSequence()
              + " but the previous one ends at "
              + previousLast);
    }
  }

  private static boolean tornCreation(FileSystem fs, Path path) throws IOException {
    try (FileChannel ch = fs.openRead(path)) {
      SegmentHeader.read(ch, path);
      return false;
    } catch (CorruptionException e) {
      return true;
    }
  }

  private record Active(
      long base,
      long blocksEnd,
      long lastSequence,
      CRC32C digest,
      long blockCount,
      Path sealedPath,
      int version) {}

  private static Active recoverActive(
      FileSystem fs,
      Path dir,
      Path path,
      FileChannel ch,
      long number,
      long previousLast,
      BlockReader reader,
      QueueCounters counters,
      boolean readOnly)
      throws IOException {
    long size = ch.size();
    SegmentScanner scan = new SegmentScanner(path, ch, size, reader);
    checkHeader(path, scan.header(), number, previousLast);
    DecodedBlock block = new DecodedBlock();
    while (true) {
      SegmentScanner.Kind kind;
      try {
        kind = scan.next(block);
      } catch (CorruptionException e) {
        long claim = scan.durableClaimAfterDamage();
        if (claim > scan.position()) {
          throw new CorruptionException(
              path,
              scan.position(),
              e.getMessage()
                  + "; a sync mark after it says the first "
                  + claim
                  + " bytes were on disk, so this is damage, not a torn write");
        }
        long dropped = size - scan.position();
        if (readOnly) {
          LOG.warn(
              "{}: {} bytes at offset {} are a torn tail ({}); read up to it and left in place"
                  + " (opened read-only)",
              path,
              dropped,
              scan.position(),
              e.getMessage());
          return active(scan, null);
        }
        if (claim >= 0) {
          LOG.warn(
              "{}: torn tail of {} bytes at offset {} truncated ({}); blocks after it verify, but"
                  + " no sync mark says any of it was ever forced: pages written back out of order"
                  + " before a power loss, nothing acknowledged",
              path,
              dropped,
              scan.position(),
              e.getMessage());
        } else {
          LOG.warn(
              "{}: torn tail of {} bytes at offset {} truncated ({})",
              path,
              dropped,
              scan.position(),
              e.getMessage());
        }
        counters.tornTailBytesDropped.add(dropped);
        fs.truncate(path, scan.position());
        kind = SegmentScanner.Kind.END;
      }
      if (kind == SegmentScanner.Kind.END) {
        return active(scan, null);
      }
      if (kind == SegmentScanner.Kind.FOOTER) {
        if (readOnly) {
          return active(scan, path); // sealed in all but its name: read as it is
        }
        Path sealed = new SegmentFileName(number, true).in(dir);
        LOG.info("{}: finishing an interrupted seal", path);
        fs.rename(path, sealed);
        fs.syncDirectory(dir);
        return active(scan, sealed);
      }
    }
  }

  /** What a scan of the active segment found, up to its position (or its footer, if sealed). */
  private static Active active(SegmentScanner scan, Path sealedPath) {
    return new Active(
        scan.header().baseSequence(),
        sealedPath == null ? scan.position() : scan.footer().blocksEnd(),
        scan.nextSequence() - 1,
        sealedPath == null ? scan.digest() : null,
        scan.blockCount(),
        sealedPath,
        scan.header().version());
  }
}
