package io.docstore.queue.block;

import static io.docstore.queue.format.BlockFormat.*;

import io.docstore.io.Checksums;
import io.docstore.io.CorruptionException;
import io.docstore.io.MappedFile;
import io.docstore.queue.format.Address;
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
 * the whole block: no system call and no copy once the pages are resident. Otherwise from a
 * single positional read ({@code FileChannel.read(buf, pos)}). Both paths run the same checks.
 *
 * <p>The first positional read asks for {@code expectedBlockBytes}, which covers every block built
 * under the configured block size; only a block holding one oversized record needs a second read.
 *
 * <p>Not thread-safe: one per thread (the reader keeps them in a ThreadLocal) or per tailer. Its
 * buffers grow to the largest block seen and are reused, so a read allocates nothing beyond a
 * short-lived buffer view for the checksum.
 */
public final class BlockReader {

  private static final LZ4SafeDecompressor DECOMPRESSOR = LZ4Factory.fastestInstance().safeDecompressor();

  private final CRC32C crc = new CRC32C();
  private final int expectedBlockBytes;
  private ByteBuffer buf;
  private ByteBuffer rawView = ByteBuffer.allocate(0);

  /** @param expectedBlockBytes bytes to read at first: header plus the largest usual stored payload */
  public BlockReader(int expectedBlockBytes) {
    this.expectedBlockBytes = Math.max(expectedBlockBytes, HEADER_LENGTH);
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
  public void read(FileChannel ch, Path file, long offset, long limit, DecodedBlock into) throws IOException {
    read(ch, null, false, file, offset, limit, into);
  }

  /**
   * As {@link #read(FileChannel, Path, long, long, DecodedBlock)}, from {@code mapped} when it can
   * map the whole block ({@code limit} is final when {@code limitIsFinal}, as for a sealed segment).
   *
   * @return whether the block came from the mapping
   */
  public boolean read(FileChannel ch, MappedFile mapped, boolean limitIsFinal, Path file, long offset, long limit,
      DecodedBlock into) throws IOException {
    long available = limit - offset;
    if (available < HEADER_LENGTH) {
      throw new CorruptionException(file, offset, "truncated block header: " + Math.max(available, 0)
          + " bytes before the end at " + limit);
    }
    ByteBuffer whole = mapped == null ? null : mappedBlock(mapped, limitIsFinal, file, offset, limit);
    if (whole != null) {
      decode(whole, MappedFile.indexInChunk(offset), file, offset, into);
      return true;
    }
    int first = (int) Math.min(expectedBlockBytes, available);
    readFully(ch, file, offset, first);
    int total = checkHeader(buf, 0, available, file, offset);
    if (total > first) {
      if (total > buf.capacity()) {
        buf = ByteBuffer.allocateDirect(Integer.highestOneBit(total - 1) << 1).order(ByteOrder.BIG_ENDIAN);
      }
      readFully(ch, file, offset, total);
    }
    decode(buf, 0, file, offset, into);
    return false;
  }

  /** Checks the block header at {@code base} of {@code src}; the block's total length. */
  private static int checkHeader(ByteBuffer src, int base, long available, Path file, long offset)
      throws CorruptionException {
    int storedLength = src.getInt(base + STORED_LENGTH);
    int rawLength = src.getInt(base + RAW_LENGTH);
    int count = Short.toUnsignedInt(src.getShort(base + RECORD_COUNT));
    int flags = src.get(base + FLAGS);
    if (storedLength <= 0 || storedLength > MAX_PAYLOAD || rawLength <= 0 || rawLength > MAX_PAYLOAD
        || count == 0 || count > Address.MAX_RECORDS_PER_BLOCK || (flags & ~FLAG_LZ4) != 0 || src.get(base + RESERVED) != 0) {
      throw new CorruptionException(file, offset, String.format(
          "implausible block header (stored %d, raw %d, records %d, flags %d)", storedLength, rawLength, count, flags));
    }
    int total = HEADER_LENGTH + storedLength;
    if (total > available) {
      throw new CorruptionException(file, offset, "block of " + total + " bytes runs past the end at " + (offset + available));
    }
    return total;
  }

  /**
   * The mapped chunk holding the block at {@code offset} when that block is stored uncompressed
   * and mapped whole, its header and checksum verified in place and nothing copied (the block starts
   * at {@link MappedFile#indexInChunk}{@code (offset)}); null when it is compressed or cannot be
   * mapped, for {@link #read} to decode it. A reader of one record then checks just that record's
   * bounds ({@link RawRecords}); the whole offset table is validated by {@link #read}.
   */
  public static ByteBuffer mappedRaw(MappedFile mapped, boolean limitIsFinal, Path file, long offset, long limit)
      throws CorruptionException {
    ByteBuffer whole = mappedBlock(mapped, limitIsFinal, file, offset, limit);
    int base = MappedFile.indexInChunk(offset);
    if (whole == null || (whole.get(base + FLAGS) & FLAG_LZ4) != 0) {
      return null;
    }
    verify(whole, base, HEADER_LENGTH + whole.getInt(base + STORED_LENGTH), false, new CRC32C(), file, offset);
    return whole;
  }

  /**
   * The mapped chunk holding the whole block at {@code offset}, its header checked; null when the
   * header or the block cannot be mapped (the caller then reads it positionally).
   */
  private static ByteBuffer mappedBlock(MappedFile mapped, boolean limitIsFinal, Path file, long offset, long limit)
      throws CorruptionException {
    ByteBuffer head = mapped.chunk(offset, HEADER_LENGTH, limit, limitIsFinal);
    if (head == null) {
      return null;
    }
    int total = checkHeader(head, MappedFile.indexInChunk(offset), limit - offset, file, offset);
    return mapped.chunk(offset, total, limit, limitIsFinal);
  }

  /** Checks the block's checksum (and a raw block's lengths); its stored checksum. */
  private static int verify(ByteBuffer src, int base, int total, boolean lz4, CRC32C crc, Path file, long offset)
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
    int storedLength = total - HEADER_LENGTH;
    if (!lz4 && src.getInt(base + RAW_LENGTH) != storedLength) {
      throw new CorruptionException(file, offset, "raw block with stored length " + storedLength + " != raw length "
          + src.getInt(base + RAW_LENGTH));
    }
    return expected;
  }

  /** Verifies, decompresses and validates the block at {@code base} of {@code src}, its header checked. */
  private void decode(ByteBuffer src, int base, Path file, long offset, DecodedBlock into) throws CorruptionException {
    int storedLength = src.getInt(base + STORED_LENGTH);
    int total = HEADER_LENGTH + storedLength;
    int rawLength = src.getInt(base + RAW_LENGTH);
    int count = Short.toUnsignedInt(src.getShort(base + RECORD_COUNT));
    boolean lz4 = (src.get(base + FLAGS) & FLAG_LZ4) != 0;
    int expected = verify(src, base, total, lz4, crc, file, offset);
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
        throw new CorruptionException(file, offset, "LZ4 payload does not decompress: " + e.getMessage());
      }
      if (n != rawLength) {
        throw new CorruptionException(file, offset, "decompressed to " + n + " bytes, header says " + rawLength);
      }
    } else {
      src.get(base + HEADER_LENGTH, into.raw, 0, rawLength);
    }
    into.rawLength = rawLength;
    into.count = count;
    into.firstSequence = src.getLong(base + FIRST_SEQUENCE);
    into.offset = offset;
    into.storedLength = storedLength;
    into.crc = expected;
    into.compressed = lz4;
    String problem = into.validate();
    if (problem != null) {
      into.count = 0;
      throw new CorruptionException(file, offset, "block passes its checksum but " + problem);
    }
  }

  private void readFully(FileChannel ch, Path file, long offset, int length) throws IOException {
    buf.clear().limit(length);
    long pos = offset;
    while (buf.hasRemaining()) {
      int n = ch.read(buf, pos);
      if (n < 0) {
        throw new CorruptionException(file, offset, "file ends at " + pos + " inside a block expected to reach "
            + (offset + length));
      }
      pos += n;
    }
  }
}
