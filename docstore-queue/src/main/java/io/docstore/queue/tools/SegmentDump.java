package io.docstore.queue.tools;

import io.docstore.io.CorruptionException;
import io.docstore.io.FileSystem;
import io.docstore.queue.Op;
import io.docstore.queue.RecordBody;
import io.docstore.queue.block.BlockReader;
import io.docstore.queue.block.DecodedBlock;
import io.docstore.queue.format.Address;
import io.docstore.queue.segment.SegmentFooter;
import io.docstore.queue.segment.SegmentScanner;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.time.Instant;

/**
 * Prints a segment file for humans: the header, each block (offset, stored and raw sizes, record
 * count, compression, checksum status) and each record (address, id, sequence, op, body size), and
 * the footer. Stops at the first damaged block, printing what is wrong and where. Read-only.
 */
public final class SegmentDump {

  private SegmentDump() {}

  /** Dumps {@code file}; returns true if every block (and the footer, if any) verified. */
  public static boolean dump(Path file, PrintStream out) throws IOException {
    return dump(FileSystem.real(), file, out, true);
  }

  /**
   * @param records whether to print a line per record, or only per block
   */
  public static boolean dump(FileSystem fs, Path file, PrintStream out, boolean records)
      throws IOException {
    try (FileChannel ch = fs.openRead(file)) {
      long size = ch.size();
      out.printf("file %s (%d bytes)%n", file, size);
      SegmentScanner scan;
      try {
        scan = new SegmentScanner(file, ch, size, new BlockReader(64 * 1024, true));
      } catch (IOException e) {
        out.printf("header: BAD %s%n", e.getMessage());
        return false;
      }
      long segment = scan.header().segment();
      out.printf(
          "header: format docstore.segment v%d, segment %d, base sequence %d%n",
          scan.header().version(), segment, scan.header().baseSequence());
      DecodedBlock block = new DecodedBlock();
      while (true) {
        long offset = scan.position();
        SegmentScanner.Kind kind;
        try {
          kind = scan.next(block);
        } catch (CorruptionException e) {
          out.printf("block @%d: BAD %s%n", offset, e.getMessage());
          return false;
        }
        switch (kind) {
          case END -> {
            out.printf(
                "end @%d: no footer (active segment), %d blocks%n", offset, scan.blockCount());
            return true;
          }
          case FOOTER -> {
            SegmentFooter f = scan.footer();
            out.printf(
                "footer @%d: OK records %d, sequences %d..%d, blocks %d, block crc digest %08x%s%n",
                offset,
                f.recordCount(),
                f.firstSequence(),
                f.lastSequence(),
                f.blockCount(),
                f.blockCrcDigest(),
                f.reclaimed() ? ", reclaimed: hollow, its records relocated or garbage" : "");
            return true;
          }
          case BLOCK -> {
            out.printf(
                "block @%d: stored %d, raw %d, records %d, %s, sequences %d..%d, crc %08x OK%n",
                offset,
                block.storedLength(),
                block.rawLength(),
                block.count(),
                block.dictionary()
                    ? "zstd dictionary"
                    : block.padding()
                        ? "padding to the page end"
                        : block.syncedEnd() >= 0
                            ? "sync mark: the first " + block.syncedEnd() + " bytes were on disk"
                            : block.zstd()
                                ? "records one by one with record crcs"
                                    + (block.splitRecords() > 0
                                        ? " (" + block.splitRecords() + " relocated, stored split)"
                                        : "")
                                : block.compressed()
                                    ? "lz4"
                                    : block.recordChecksums() ? "raw with record crcs" : "raw",
                block.firstSequence(),
                block.lastSequence(),
                block.crc());
            if (records) {
              for (int i = 0; i < block.count(); i++) {
                Op op = Op.of(block.op(i));
                out.printf(
                    "  record %s id %d seq %d %s size %d%s%n",
                    Address.toString(Address.of(segment, offset, i)),
                    block.id(i),
                    block.firstSequence() + i,
                    op,
                    block.bodyLength(i),
                    kindDetail(op, block.raw(), block.bodyStart(i), block.bodyLength(i)));
              }
            }
          }
        }
      }
    }
  }

  /** A GROUPS body: its kind, version, group names and expiry. */
  private static String groupsDetail(Op op, ByteBuffer body, int at, int length) {
    try {
      long expires = RecordBody.expiresAtMillis(op, body, at, length);
      return (RecordBody.groupsWithDocument(op, body, at)
              ? " with its document"
              : " re-projected from seq " + RecordBody.version(op, 0, body, at))
          + ", groups "
          + RecordBody.groupNames(body, at, length)
          + (expires == RecordBody.NEVER ? "" : " expires " + Instant.ofEpochMilli(expires));
    } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
      return " (damaged: " + e.getMessage() + ")";
    }
  }

  /** A SOURCE body: its partition, how many records it names and the offsets they span. */
  static String sourceDetail(ByteBuffer body, int at, int length) {
    try {
      int count = RecordBody.sourceCount(body, at, length);
      return " partition "
          + RecordBody.sourcePartition(body, at)
          + ", "
          + count
          + " records"
          + (count == 0
              ? ""
              : " from offsets "
                  + RecordBody.sourceOffset(body, at, 0)
                  + " to "
                  + RecordBody.sourceOffset(body, at, count - 1))
          + ", next offset "
          + RecordBody.sourceNextOffset(body, at);
    } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
      return " (damaged: " + e.getMessage() + ")";
    }
  }

  /** What a record of a kind other than PUT and DELETE carries besides its document. */
  static String kindDetail(Op op, ByteBuffer body, int at, int length) {
    return switch (op) {
      case PUT, DELETE -> "";
      case PUT_EXPIRING -> " expires " + Instant.ofEpochMilli(body.getLong(at));
      case DROPPED ->
          " drops seq "
              + RecordBody.version(op, 0, body, at)
              + " at "
              + Address.toString(RecordBody.originalAddress(op, body, at));
      case GROUPS -> groupsDetail(op, body, at, length);
      case SOURCE -> sourceDetail(body, at, length);
      case RELOCATED -> {
        String detail;
        try {
          Op original = RecordBody.originalOp(op, body, at, length);
          long expires = RecordBody.expiresAtMillis(op, body, at, length);
          detail =
              " of "
                  + original
                  + " seq "
                  + RecordBody.version(op, 0, body, at)
                  + " from "
                  + Address.toString(RecordBody.originalAddress(op, body, at))
                  + (original == Op.GROUPS
                      ? groupsDetail(Op.GROUPS, body, at + 17, length - 17)
                      : original == Op.SOURCE
                          ? sourceDetail(body, at + 17, length - 17)
                          : expires == RecordBody.NEVER
                              ? ""
                              : " expires " + Instant.ofEpochMilli(expires));
        } catch (IllegalArgumentException e) {
          detail = " (damaged: " + e.getMessage() + ")";
        }
        yield detail;
      }
    };
  }
}
