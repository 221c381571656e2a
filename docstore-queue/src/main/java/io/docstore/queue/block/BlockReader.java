package io.docstore.queue.block;

import static io.docstore.queue.format.BlockFormat.*;

import io.docstore.io.Checksums;
import io.docstore.io.CorruptionException;
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
 * Loads one block: a single positional read ({@code FileChannel.read(buf, pos)}, no mmap: random
 * reads must not trigger the disk's large read-ahead), checksum, decompress, validate.
 *
 * <p>The first read asks for {@code expectedBlockBytes}, which covers every block built under the
 * configured block size; only a block holding one oversized record needs a second read.
 *
 * <p>Not thread-safe: one per thread (the reader keeps them in a ThreadLocal) or per tailer. Its
 * buffers grow to the largest block seen and are reused, so a read allocates nothing.
 */
public final class BlockReader {

  private static final LZ4SafeDecompressor DECOMPRESSOR = LZ4Factory.fastestInstance().safeDecompressor();

  private final CRC32C crc = new CRC32C();
  private final int expectedBlockBytes;
  private ByteBuffer buf;
  private byte[] stored = new byte[0];

  /** @param expectedBlockBytes bytes to read at first: header plus the largest usual stored payload */
  public BlockReader(int expectedBlockBytes) {
    this.expectedBlockBytes = Math.max(expectedBlockBytes, HEADER_LENGTH);
    buf = ByteBuffer.allocateDirect(this.expectedBlockBytes).order(ByteOrder.BIG_ENDIAN);
  }

  /**
   * Reads the block starting at {@code offset} of {@code file} into {@code into}.
   *
   * @param limit offset where readable blocks end (the flushed end of an active segment, the footer
   *     of a sealed one); a block reaching past it is damage
   * @throws CorruptionException naming the file and offset (and checksums where they differ)
   */
  public void read(FileChannel ch, Path file, long offset, long limit, DecodedBlock into) throws IOException {
    long available = limit - offset;
    if (available < HEADER_LENGTH) {
      throw new CorruptionException(file, offset, "truncated block header: " + Math.max(available, 0)
          + " bytes before the end at " + limit);
    }
    int first = (int) Math.min(expectedBlockBytes, available);
    readFully(ch, file, offset, first);
    int storedLength = buf.getInt(STORED_LENGTH);
    int rawLength = buf.getInt(RAW_LENGTH);
    int count = Short.toUnsignedInt(buf.getShort(RECORD_COUNT));
    int flags = buf.get(FLAGS);
    if (storedLength <= 0 || storedLength > MAX_PAYLOAD || rawLength <= 0 || rawLength > MAX_PAYLOAD
        || count == 0 || count > Address.MAX_RECORDS_PER_BLOCK || (flags & ~FLAG_LZ4) != 0 || buf.get(RESERVED) != 0) {
      throw new CorruptionException(file, offset, String.format(
          "implausible block header (stored %d, raw %d, records %d, flags %d)", storedLength, rawLength, count, flags));
    }
    int total = HEADER_LENGTH + storedLength;
    if (total > available) {
      throw new CorruptionException(file, offset, "block of " + total + " bytes runs past the end at " + limit);
    }
    if (total > first) {
      if (total > buf.capacity()) {
        buf = ByteBuffer.allocateDirect(Integer.highestOneBit(total - 1) << 1).order(ByteOrder.BIG_ENDIAN);
      }
      readFully(ch, file, offset, total);
    }
    int expected = buf.getInt(CRC);
    crc.reset();
    buf.limit(total).position(STORED_LENGTH);
    crc.update(buf);
    int actual = Checksums.mask((int) crc.getValue());
    if (actual != expected) {
      throw CorruptionException.checksum(file, offset, "block", expected, actual);
    }
    boolean lz4 = (flags & FLAG_LZ4) != 0;
    if (!lz4 && rawLength != storedLength) {
      throw new CorruptionException(file, offset, "raw block with stored length " + storedLength + " != raw length " + rawLength);
    }
    if (into.raw.length < rawLength) {
      into.raw = new byte[Math.max(rawLength, into.raw.length * 2)];
    }
    buf.limit(total).position(HEADER_LENGTH);
    if (lz4) {
      if (stored.length < storedLength) {
        stored = new byte[Math.max(storedLength, stored.length * 2)];
      }
      buf.get(stored, 0, storedLength);
      int n;
      try {
        n = DECOMPRESSOR.decompress(stored, 0, storedLength, into.raw, 0, rawLength);
      } catch (LZ4Exception e) {
        throw new CorruptionException(file, offset, "LZ4 payload does not decompress: " + e.getMessage());
      }
      if (n != rawLength) {
        throw new CorruptionException(file, offset, "decompressed to " + n + " bytes, header says " + rawLength);
      }
    } else {
      buf.get(into.raw, 0, rawLength);
    }
    into.rawLength = rawLength;
    into.count = count;
    into.firstSequence = buf.getLong(FIRST_SEQUENCE);
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
