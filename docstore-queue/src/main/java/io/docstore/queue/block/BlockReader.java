package io.docstore.queue.block;

import static io.docstore.queue.format.BlockFormat.*;

import io.docstore.io.Checksums;
import io.docstore.io.CorruptionException;
import io.docstore.io.MappedFile;
import io.docstore.queue.format.Address;
import io.docstore.queue.format.SegmentFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.zip.CRC32C;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;

/**
 * Loads one block: checksum, decompress, validate. The bytes come from a memory-mapped chunk of the
 * segment ({@link MappedFile}, advised {@code MADV_RANDOM}) when the caller offers one that holds
 * the whole block: no system call and no copy once the pages are resident. Otherwise from a single
 * positional read ({@code FileChannel.read(buf, pos)}). Both paths run the same checks.
 *
 * <p>The first positional read asks for {@code expectedBlockBytes}, which covers every block built
 * under the configured block size; only a block holding one oversized record needs a second read.
 *
 * <p>Not thread-safe: one per thread (the reader keeps them in a ThreadLocal) or per tailer. Its
 * buffers grow to the largest block seen and are reused, so a read allocates nothing beyond a
 * short-lived buffer view for the checksum.
 */
public final class BlockReader {

  private static final LZ4SafeDecompressor DECOMPRESSOR =
      LZ4Factory.fastestInstance().safeDecompressor();

  private final CRC32C crc = new CRC32C();
  private final int expectedBlockBytes;
  private final boolean checkRecords;
  private ByteBuffer buf;
  private ByteBuffer rawView = ByteBuffer.allocate(0);

  /** The dictionary last used, for the blocks that follow (usually of the same segment). */
  private RecordDictionary dictionary;

  /** The segment file {@link #dictionary} was read from: a block only uses its own segment's. */
  private Path dictionaryFile;

  private final ZstdRecords zrecord = new ZstdRecords();

  /** The channel of the block being decoded, for its segment's dictionary. */
  private FileChannel channel;

  /**
   * A decaying maximum of the blocks read positionally: the first read asks for about this much (to
   * the end of its page), not for the largest block the options allow.
   */
  private int typicalBlockBytes = 4096;

  /**
   * @param expectedBlockBytes bytes to read at first: header plus the largest usual stored payload
   */
  public BlockReader(int expectedBlockBytes) {
    this(expectedBlockBytes, false);
  }

  /**
   * @param checkRecords whether to check every record checksum of a block that has them, on top of
   *     the block's checksum: for the verifier and for recovery, where a record checksum that
   *     disagrees with a good block checksum (a writer bug) must be found before a reader of that
   *     one record finds it
   */
  public BlockReader(int expectedBlockBytes, boolean checkRecords) {
    this.expectedBlockBytes = Math.max(expectedBlockBytes, HEADER_LENGTH);
    this.checkRecords = checkRecords;
    buf = ByteBuffer.allocateDirect(this.expectedBlockBytes).order(ByteOrder.BIG_ENDIAN);
  }

  /**
   * Reads the block starting at {@code offset} of {@code file} into {@code into} with a positional
   * read.
   *
   * @param limit offset where readable blocks end (the flushed end of an active segment, the footer
   *     of a sealed one); a block reaching past it is damage
   * @throws CorruptionException naming the file and offset (and checksums where they differ)
   */
  public void read(FileChannel ch, Path file, long offset, long limit, DecodedBlock into)
      throws IOException {
    read(ch, null, false, file, offset, limit, into);
  }

  /**
   * As {@link #read(FileChannel, Path, long, long, DecodedBlock)}, from {@code mapped} when it can
   * map the whole block ({@code limit} is final when {@code limitIsFinal}, as for a sealed
   * segment).
   *
   * @return whether the block came from the mapping
   */
  public boolean read(
      FileChannel ch,
      MappedFile mapped,
      boolean limitIsFinal,
      Path file,
      long offset,
      long limit,
      DecodedBlock into)
      throws IOException {
    long available = limit - offset;
    if (available < HEADER_LENGTH) {
      throw new CorruptionException(
          file,
          offset,
          "truncated block header: "
              + Math.max(available, 0)
              + " bytes before the end at "
              + limit);
    }
    channel = ch;
    try {
      ByteBuffer whole =
          mapped == null ? null : mappedBlock(mapped, limitIsFinal, file, offset, limit);
      if (whole != null) {
        decode(whole, MappedFile.indexInChunk(offset), file, offset, into);
        return true;
      }
      readStored(ch, file, offset, limit);
      decode(buf, 0, file, offset, into);
      return false;
    } finally {
      channel = null;
    }
  }

  /**
   * Whether a verifiable block lies at {@code offset}: plausible header and a matching checksum,
   * nothing decoded (so a block whose dictionary is damaged still counts as written data).
   */
  public boolean verifiable(FileChannel ch, Path file, long offset, long limit) throws IOException {
    try {
      ByteBuffer b = readStored(ch, file, offset, limit);
      verify(b, 0, HEADER_LENGTH + b.getInt(STORED_LENGTH), true, crc, file, offset);
      return true;
    } catch (CorruptionException e) {
      return false;
    }
  }

  /**
   * Reads the block at {@code offset} and checks its header and its checksum, decoding nothing (no
   * decompression, no record): for a reader that only needs to know a complete block is there and
   * which sequences it holds, such as the replication manifest's publisher. A block still being
   * written, or torn, fails the checksum.
   *
   * @throws CorruptionException naming the file and offset
   */
  public void readHeader(FileChannel ch, Path file, long offset, long limit, BlockHeader into)
      throws IOException {
    ByteBuffer b = readStored(ch, file, offset, limit);
    int storedLength = b.getInt(STORED_LENGTH);
    into.crc = verify(b, 0, HEADER_LENGTH + storedLength, true, crc, file, offset);
    into.offset = offset;
    into.storedLength = storedLength;
    into.count = Short.toUnsignedInt(b.getShort(RECORD_COUNT));
    into.firstSequence = b.getLong(FIRST_SEQUENCE);
  }

  /**
   * Decodes the block that {@link #readStored} just read (at {@code offset} of {@code file}, open
   * as {@code ch}) into {@code into}: the same checks as {@link #read}.
   */
  public void decodeStored(FileChannel ch, Path file, long offset, DecodedBlock into)
      throws IOException {
    channel = ch;
    try {
      decode(buf, 0, file, offset, into);
    } finally {
      channel = null;
    }
  }

  /**
   * Reads the block at {@code offset} as stored, header checked but nothing verified, into this
   * reader's buffer (block at index 0, valid until the next read): for a reader of one record,
   * which checks that record ({@link #checkRecord}). The first read asks for about the size of the
   * blocks read lately, to the end of its 4 KiB page; a longer block takes a second read.
   */
  public ByteBuffer readStored(FileChannel ch, Path file, long offset, long limit)
      throws IOException {
    long available = limit - offset;
    if (available < HEADER_LENGTH) {
      throw new CorruptionException(
          file,
          offset,
          "truncated block header: "
              + Math.max(available, 0)
              + " bytes before the end at "
              + limit);
    }
    long pageEnd = (offset + typicalBlockBytes + PAGE - 1) & -PAGE;
    int first =
        (int)
            Math.max(
                HEADER_LENGTH, Math.min(Math.min(expectedBlockBytes, available), pageEnd - offset));
    readFully(ch, file, offset, first);
    int total = checkHeader(buf, 0, available, file, offset);
    if (total > first) {
      if (total > buf.capacity()) {
        readFully(ch, file, offset, total);
      } else {
        readFully(ch, file, offset + first, first, total - first);
      }
    }
    typicalBlockBytes = Math.max(total, typicalBlockBytes - typicalBlockBytes / 16);
    return buf;
  }

  private static final int PAGE = 4096;

  /**
   * Checks the header of the block at {@code base} of {@code src}, {@code available} bytes of its
   * segment from there on, and returns the block's length as stored (header included): for a reader
   * that reads blocks in runs of its own.
   *
   * @throws CorruptionException naming the file and offset if the header cannot be a block's
   */
  public static int storedBlockLength(
      ByteBuffer src, int base, long available, Path file, long offset) throws CorruptionException {
    return checkHeader(src, base, available, file, offset);
  }

  /** Checks the block header at {@code base} of {@code src}; the block's total length. */
  private static int checkHeader(ByteBuffer src, int base, long available, Path file, long offset)
      throws CorruptionException {
    int storedLength = src.getInt(base + STORED_LENGTH);
    int rawLength = src.getInt(base + RAW_LENGTH);
    int count = Short.toUnsignedInt(src.getShort(base + RECORD_COUNT));
    int flags = src.get(base + FLAGS);
    boolean dictionary = flags == FLAG_DICTIONARY;
    boolean mark = flags == FLAG_SYNC_MARK;
    boolean recordless = dictionary || flags == FLAG_PADDING || mark;
    if (storedLength <= 0
        || storedLength > MAX_PAYLOAD
        || rawLength <= 0
        || rawLength > MAX_PAYLOAD
        || (count == 0) != recordless
        || count > Address.MAX_RECORDS_PER_BLOCK
        || (flags != 0
            && flags != FLAG_LZ4
            && flags != FLAG_RECORD_CRCS
            && flags != FLAG_ZSTD_RECORDS
            && !recordless)
        || (recordless && rawLength != storedLength)
        || (dictionary && offset != SegmentFormat.HEADER_LENGTH)
        || (mark && storedLength != MARK_PAYLOAD)
        || (flags == FLAG_ZSTD_RECORDS
            && storedLength
                < ZSTD_TABLE + OFFSET_ENTRY + count * (OFFSET_ENTRY + ZRECORD_BODY + RECORD_CRC))
        || src.get(base + RESERVED) != 0) {
      throw new CorruptionException(
          file,
          offset,
          String.format(
              "implausible block header (stored %d, raw %d, records %d, flags %d)",
              storedLength, rawLength, count, flags));
    }
    int total = HEADER_LENGTH + storedLength;
    if (total > available) {
      throw new CorruptionException(
          file,
          offset,
          "block of " + total + " bytes runs past the end at " + (offset + available));
    }
    return total;
  }

  /**
   * {@code src} if one record of the block at {@code base} (header checked, the whole block
   * present: a segment's mapping from {@link #mappedBlock}, or {@link #readStored}) can be read in
   * place, nothing copied: a block stored uncompressed or as records stored one by one; null when
   * it is LZ4-compressed as a whole or holds no record, for {@link #read} to decode it. A block
   * with record checksums is not checksummed as a whole: a reader of one record checks that
   * record's bounds and checksum ({@link RawRecords} and {@link #checkRecord}, or {@link
   * ZstdRecords#locate}); an older block without them is verified here whole.
   */
  public static ByteBuffer inPlace(ByteBuffer src, int base, Path file, long offset)
      throws CorruptionException {
    int flags = src.get(base + FLAGS);
    if (flags == FLAG_LZ4
        || flags == FLAG_DICTIONARY
        || flags == FLAG_PADDING
        || flags == FLAG_SYNC_MARK) {
      return null;
    }
    int total = HEADER_LENGTH + src.getInt(base + STORED_LENGTH);
    if (flags == FLAG_RECORD_CRCS) {
      checkRawLength(src, base, total - HEADER_LENGTH, file, offset);
    } else if (flags == 0) {
      verify(src, base, total, false, new CRC32C(), file, offset);
    }
    return src;
  }

  /** Whether the block at {@code base} of {@code src} stores its records compressed one by one. */
  public static boolean zstdRecords(ByteBuffer src, int base) {
    return src.get(base + FLAGS) == FLAG_ZSTD_RECORDS;
  }

  /**
   * Checks record {@code index}, bytes {@code [start, end)} of the payload of the uncompressed
   * block whose header is at {@code base} of {@code src} (from {@link #inPlace}), against its own
   * checksum; a block without record checksums was verified whole by {@link #inPlace}.
   *
   * @throws CorruptionException naming the file, the block's offset and both checksums
   */
  public static void checkRecord(
      ByteBuffer src, int base, int index, int start, int end, Path file, long offset)
      throws CorruptionException {
    if (!hasRecordChecksums(src, base)) {
      return;
    }
    int payload = base + HEADER_LENGTH;
    int expected = src.getInt(payload + recordChecksumAt(src.getInt(base + RAW_LENGTH), index));
    int actual =
        RecordChecksum.of(
            src, payload + start, payload + end, src.getLong(base + FIRST_SEQUENCE) + index);
    if (actual != expected) {
      throw CorruptionException.checksum(file, offset, "record " + index, expected, actual);
    }
  }

  /**
   * Whether the block whose header is at {@code base} of {@code src} carries a checksum per record.
   */
  private static boolean hasRecordChecksums(ByteBuffer src, int base) {
    return src.get(base + FLAGS) == FLAG_RECORD_CRCS;
  }

  /**
   * Offset of record {@code i}'s checksum from the start of the payload of a block with record
   * checksums.
   */
  private static int recordChecksumAt(int rawLength, int i) {
    return rawLength + i * RECORD_CRC;
  }

  /**
   * The mapped chunk holding the whole block at {@code offset} (at {@link
   * MappedFile#indexInChunk}), its header checked; null when the header or the block cannot be
   * mapped (yet), for the caller to read it positionally.
   */
  public static ByteBuffer mappedBlock(
      MappedFile mapped, boolean limitIsFinal, Path file, long offset, long limit)
      throws CorruptionException {
    ByteBuffer head = mapped.chunk(offset, HEADER_LENGTH, limit, limitIsFinal);
    if (head == null) {
      return null;
    }
    int total = checkHeader(head, MappedFile.indexInChunk(offset), limit - offset, file, offset);
    return mapped.chunk(offset, total, limit, limitIsFinal);
  }

  /**
   * Checks the block's checksum (and, unless {@code encoded}, a raw block's lengths); its stored
   * checksum.
   */
  private static int verify(
      ByteBuffer src, int base, int total, boolean encoded, CRC32C crc, Path file, long offset)
      throws CorruptionException {
    int expected = src.getInt(base + CRC);
    crc.reset();
    ByteBuffer covered = src.duplicate();
    covered.limit(base + total).position(base + STORED_LENGTH);
    crc.update(covered);
    int actual = Checksums.mask((int) crc.getValue());
    if (actual != expected) {
      throw CorruptionException.checksum(file, offset, "block", expected, actual);
    }
    if (!encoded) {
      checkRawLength(src, base, total - HEADER_LENGTH, file, offset);
    }
    return expected;
  }

  /** An uncompressed block stores its raw payload, plus a checksum per record if it has them. */
  private static void checkRawLength(
      ByteBuffer src, int base, int storedLength, Path file, long offset)
      throws CorruptionException {
    int rawLength = src.getInt(base + RAW_LENGTH);
    int checksums =
        hasRecordChecksums(src, base)
            ? Short.toUnsignedInt(src.getShort(base + RECORD_COUNT)) * RECORD_CRC
            : 0;
    if ((long) rawLength + checksums != storedLength) {
      throw new CorruptionException(
          file,
          offset,
          "uncompressed block with stored length "
              + storedLength
              + " != raw length "
              + rawLength
              + (checksums > 0 ? " + " + checksums + " bytes of record checksums" : ""));
    }
  }

  /**
   * Verifies, decompresses and validates the block at {@code base} of {@code src}, its header
   * checked.
   */
  private void decode(ByteBuffer src, int base, Path file, long offset, DecodedBlock into)
      throws IOException {
    int storedLength = src.getInt(base + STORED_LENGTH);
    int total = HEADER_LENGTH + storedLength;
    int rawLength = src.getInt(base + RAW_LENGTH);
    int count = Short.toUnsignedInt(src.getShort(base + RECORD_COUNT));
    int flags = src.get(base + FLAGS);
    boolean lz4 = flags == FLAG_LZ4;
    boolean whole =
        lz4
            || flags == FLAG_ZSTD_RECORDS
            || flags == FLAG_DICTIONARY
            || flags == FLAG_PADDING
            || flags == FLAG_SYNC_MARK;
    int expected = verify(src, base, total, whole, crc, file, offset);
    into.offset = offset;
    into.storedLength = storedLength;
    into.crc = expected;
    into.firstSequence = src.getLong(base + FIRST_SEQUENCE);
    into.compressed =
        lz4 || (flags == FLAG_ZSTD_RECORDS && ZstdRecords.dictionaryId(src, base) != 0);
    into.recordChecksums = flags == FLAG_RECORD_CRCS || flags == FLAG_ZSTD_RECORDS;
    into.zstd = flags == FLAG_ZSTD_RECORDS;
    into.dictionary = flags == FLAG_DICTIONARY;
    into.padding = flags == FLAG_PADDING;
    into.splitRecords = 0;
    into.syncedEnd =
        flags == FLAG_SYNC_MARK ? src.getLong(base + HEADER_LENGTH + MARK_SYNCED_END) : -1;
    if (into.syncedEnd >= 0 && into.syncedEnd > offset) {
      throw new CorruptionException(
          file,
          offset,
          "sync mark claims " + into.syncedEnd + " bytes were durable, past its own offset");
    }
    if (into.dictionary || into.padding || flags == FLAG_SYNC_MARK) {
      into.count = 0;
      into.rawLength = 0;
      return;
    }
    if (into.raw.length < rawLength) {
      into.raw = new byte[Math.max(rawLength, into.raw.length * 2)];
    }
    if (lz4) {
      if (rawView.array() != into.raw) {
        rawView = ByteBuffer.wrap(into.raw);
      }
      int n;
      try {
        n = DECOMPRESSOR.decompress(src, base + HEADER_LENGTH, storedLength, rawView, 0, rawLength);
      } catch (LZ4Exception e) {
        throw new CorruptionException(
            file, offset, "LZ4 payload does not decompress: " + e.getMessage());
      }
      if (n != rawLength) {
        throw new CorruptionException(
            file, offset, "decompressed to " + n + " bytes, header says " + rawLength);
      }
    } else if (flags == FLAG_ZSTD_RECORDS) {
      decodeRecords(src, base, count, rawLength, file, offset, into);
    } else {
      src.get(base + HEADER_LENGTH, into.raw, 0, rawLength);
    }
    into.rawLength = rawLength;
    into.count = count;
    String problem = into.validate();
    if (problem == null && checkRecords && flags == FLAG_RECORD_CRCS) {
      problem = checkRecordChecksums(src, base + HEADER_LENGTH, into);
    }
    if (problem != null) {
      into.count = 0;
      throw new CorruptionException(file, offset, "block passes its checksum but " + problem);
    }
  }

  /**
   * Decodes a block of records compressed one by one into the plain layout of {@code into} (offset
   * table, then records), checking each record against its own checksum, with the segment's
   * dictionary (read from the segment's first block the first time).
   */
  private void decodeRecords(
      ByteBuffer src, int base, int count, int rawLength, Path file, long offset, DecodedBlock into)
      throws IOException {
    RecordDictionary d = dictionary;
    int id = ZstdRecords.dictionaryId(src, base);
    if (id == 0) {
      d = null;
    } else if (d == null || d.id() != id || !file.equals(dictionaryFile)) {
      if (channel == null) {
        throw new CorruptionException(
            file,
            offset,
            "a block compressed with dictionary "
                + Integer.toHexString(id)
                + " read without its segment");
      }
      dictionary = d = ZstdRecords.load(channel, file, id);
      dictionaryFile = file;
    }
    if (rawView.array() != into.raw) {
      rawView = ByteBuffer.wrap(into.raw);
    }
    int table = count * OFFSET_ENTRY;
    int at = table;
    for (int i = 0; i < count; i++) {
      zrecord.locate(src, base, i, file, offset);
      int length = zrecord.bodyLength();
      if (at + RECORD_BODY + length > rawLength) {
        throw new CorruptionException(
            file, offset, "records decode to more than the raw length " + rawLength);
      }
      BigEndian.putInt(into.raw, i * OFFSET_ENTRY, at);
      src.get(zrecord.at(), into.raw, at, RECORD_BODY);
      if (zrecord.split()) {
        into.raw[at + RECORD_OP] = zrecord.op();
        into.splitRecords++;
      }
      zrecord.body(src, d, rawView, at + RECORD_BODY, file, offset);
      at += RECORD_BODY + length;
    }
    if (at != rawLength) {
      throw new CorruptionException(
          file, offset, "records decode to " + at + " bytes, header says " + rawLength);
    }
  }

  /**
   * Compares every record's checksum stored after the payload at {@code payload} of {@code src}; a
   * problem or null.
   */
  private static String checkRecordChecksums(ByteBuffer src, int payload, DecodedBlock block) {
    for (int i = 0; i < block.count; i++) {
      int expected = src.getInt(payload + recordChecksumAt(block.rawLength, i));
      int actual =
          RecordChecksum.of(block.raw, block.start(i), block.endOf(i), block.firstSequence + i);
      if (actual != expected) {
        return String.format(
            "record %d fails its own checksum (stored %08x, computed %08x)", i, expected, actual);
      }
    }
    return null;
  }

  private void readFully(FileChannel ch, Path file, long offset, int length) throws IOException {
    if (length > buf.capacity()) {
      buf =
          ByteBuffer.allocateDirect(Integer.highestOneBit(length - 1) << 1)
              .order(ByteOrder.BIG_ENDIAN);
    }
    readFully(ch, file, offset, 0, length);
  }

  /** Reads {@code length} bytes of the file at {@code offset} into {@link #buf} at {@code at}. */
  private void readFully(FileChannel ch, Path file, long offset, int at, int length)
      throws IOException {
    buf.limit(at + length).position(at);
    long pos = offset;
    while (buf.hasRemaining()) {
      int n = ch.read(buf, pos);
      if (n < 0) {
        throw new CorruptionException(
            file,
            offset,
            "file ends at " + pos + " inside a block expected to reach " + (offset + length));
      }
      pos += n;
    }
  }
}
