package io.docstore.queue.block;

import static io.docstore.queue.format.BlockFormat.*;

import com.github.luben.zstd.ZstdCompressCtx;
import io.docstore.io.Checksums;
import io.docstore.queue.format.Address;
import java.io.Closeable;
import java.nio.ByteBuffer;
import java.util.Arrays;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;

/**
 * Gathers records into one block and encodes it (layout in {@link io.docstore.queue.format.BlockFormat}):
 *
 * <pre>
 * +-----+-----------+--------+-------+-------+----------+------+---------------------------------------------+
 * | crc | storedLen | rawLen | count | flags | reserved | seq0 | payload (LZ4 or raw):                        |
 * | u32 | u32       | u32    | u16   | u8    | u8       | u64  |  start[0..count) u32, then records          |
 * +-----+-----------+--------+-------+-------+----------+------+  record = id u64, acceptedAt u64, op u8, body |
 *                                                                 [recordCrc[0..count) u32 when stored raw]   |
 * </pre>
 *
 * The payload is stored LZ4-compressed when that saves at least 1/16 of its size (smaller savings
 * are not worth the decompression on every read). Otherwise it is stored raw, followed by one
 * checksum per record ({@link RecordChecksum}), so that a reader of one record checks only that
 * record. A block's stored size stays within the block size either way: each record is counted
 * with its checksum ({@link io.docstore.queue.format.BlockFormat#storedRecordCost}).
 *
 * <p>Incompressible data (random bytes, already compressed bodies) is not compressed in vain on
 * every block: after {@value #SKIP_AFTER} blocks in a row that LZ4 could not shrink enough, only
 * every {@value #PROBE_EVERY}th block is tried until one compresses. Those blocks would have been
 * stored raw anyway; the cost is that the first compressible blocks after a run of incompressible
 * ones may be stored raw too (at most {@value #PROBE_EVERY} - 1 of them).
 *
 * <p>With a {@link RecordDictionary} ({@link #useDictionary}), the block is stored as records
 * compressed one by one with it ({@link io.docstore.queue.format.BlockFormat#FLAG_ZSTD_RECORDS}),
 * when that saves at least 1/16 of the uncompressed block, instead of LZ4 over the whole block:
 * smaller on disk, and a reader of one record decompresses just that record.
 *
 * <p>Not thread-safe: owned by the writer, used under its lock. Buffers are reused across blocks.
 * {@link #close} frees the compression context of a dictionary.
 */
public final class BlockBuilder implements Closeable {

  private static final LZ4Compressor COMPRESSOR = LZ4Factory.fastestInstance().fastCompressor();
  /** Blocks in a row that did not compress before compression is only probed. */
  static final int SKIP_AFTER = 8;
  /** While probing, one block in this many is tried. */
  static final int PROBE_EVERY = 16;

  /**
   * Records are encoded at {@link #TABLE_RESERVE} onwards; the offset table is written just before
   * them at {@link #finish}, so the raw payload is contiguous without a copy.
   */
  private static final int TABLE_RESERVE = OFFSET_ENTRY * Address.MAX_RECORDS_PER_BLOCK;

  private byte[] records = new byte[TABLE_RESERVE + 8192];
  private int recordsLength;
  private int[] starts = new int[64];
  private int count;
  private long firstSequence;
  private byte[] out = new byte[8192];

  /** Blocks in a row that LZ4 did not shrink enough, and blocks not tried since the last probe. */
  private int incompressible;
  private int sinceProbe;

  private RecordDictionary dictionary;
  private ZstdCompressCtx zstd;

  private int lastCrc;
  private int lastRawLength;
  private int lastCount;
  private long lastFirstSequence;

  /** Compresses the next blocks record by record with {@code d}; null goes back to LZ4 blocks. */
  public void useDictionary(RecordDictionary d) {
    if (d == dictionary) {
      return;
    }
    close();
    dictionary = d;
    zstd = d == null ? null : d.newCompressor();
    incompressible = 0;
    sinceProbe = 0;
  }

  /** The dictionary blocks are compressed with, or null. */
  public RecordDictionary dictionary() {
    return dictionary;
  }

  @Override
  public void close() {
    if (zstd != null) {
      zstd.close();
      zstd = null;
    }
    dictionary = null;
  }

  /**
   * The block that stores {@code d} as the first block of a segment whose first record will have
   * {@code nextSequence}: no records, {@code storedLength == rawLength ==} the dictionary's length.
   */
  public static ByteBuffer dictionaryBlock(RecordDictionary d, long nextSequence) {
    byte[] b = new byte[HEADER_LENGTH + d.length()];
    d.copyTo(b, HEADER_LENGTH);
    BigEndian.putInt(b, STORED_LENGTH, d.length());
    BigEndian.putInt(b, RAW_LENGTH, d.length());
    BigEndian.putShort(b, RECORD_COUNT, 0);
    b[FLAGS] = (byte) FLAG_DICTIONARY;
    b[RESERVED] = 0;
    BigEndian.putLong(b, FIRST_SEQUENCE, nextSequence);
    BigEndian.putInt(b, CRC, Checksums.crc32c(b, STORED_LENGTH, b.length - STORED_LENGTH));
    return ByteBuffer.wrap(b);
  }

  public boolean isEmpty() {
    return count == 0;
  }

  public int count() {
    return count;
  }

  /** Payload bytes of the block so far if stored uncompressed (offset table and record checksums included). */
  public int storedLength() {
    return count * (OFFSET_ENTRY + RECORD_CRC) + recordsLength;
  }

  /** Whether a record with this body can join the block without making its payload exceed {@code blockSize}. */
  public boolean fits(int bodyLength, int blockSize) {
    return fits(count, storedLength(), bodyLength, blockSize);
  }

  /**
   * {@link #fits} for a block of {@code count} records taking {@code storedLength} bytes (the sum of
   * their {@link io.docstore.queue.format.BlockFormat#storedRecordCost}): lets a caller plan block
   * boundaries before any record is copied.
   */
  public static boolean fits(int count, int storedLength, int bodyLength, int blockSize) {
    return count == 0 || (count < Address.MAX_RECORDS_PER_BLOCK && storedLength + storedRecordCost(bodyLength) <= blockSize);
  }

  /** Whether no further record, not even one with an empty body, can join. */
  public boolean full(int blockSize) {
    return !fits(0, blockSize);
  }

  /** Adds a record and returns its index in the block. Sequences must be consecutive. */
  public int add(long sequence, long id, long acceptedAtMillis, byte op, byte[] body) {
    return add(sequence, id, acceptedAtMillis, op, body, 0, body.length);
  }

  /** Adds a record whose body is {@code body[off, off+len)} and returns its index in the block. */
  public int add(long sequence, long id, long acceptedAtMillis, byte op, byte[] body, int off, int len) {
    if (count == 0) {
      firstSequence = sequence;
    } else if (sequence != firstSequence + count) {
      throw new IllegalStateException("sequence " + sequence + " does not follow " + (firstSequence + count - 1));
    }
    int need = recordsLength + RECORD_BODY + len;
    if (TABLE_RESERVE + need > records.length) {
      records = Arrays.copyOf(records, Math.max(TABLE_RESERVE + need, records.length * 2));
    }
    if (count == starts.length) {
      starts = Arrays.copyOf(starts, count * 2);
    }
    starts[count] = recordsLength;
    int p = TABLE_RESERVE + recordsLength;
    BigEndian.putLong(records, p + RECORD_ID, id);
    BigEndian.putLong(records, p + RECORD_ACCEPTED_AT, acceptedAtMillis);
    records[p + RECORD_OP] = op;
    System.arraycopy(body, off, records, p + RECORD_BODY, len);
    recordsLength = need;
    return count++;
  }

  /**
   * Encodes the block and empties the builder. The returned buffer (position 0, limit = block
   * length) is valid until the next call.
   */
  public ByteBuffer finish() {
    if (count == 0) {
      throw new IllegalStateException("empty block");
    }
    int table = count * OFFSET_ENTRY;
    int rawLen = table + recordsLength;
    int rawStart = TABLE_RESERVE - table;
    for (int i = 0; i < count; i++) {
      BigEndian.putInt(records, rawStart + i * OFFSET_ENTRY, table + starts[i]);
    }
    int maxCompressed = COMPRESSOR.maxCompressedLength(rawLen);
    int withChecksums = rawLen + count * RECORD_CRC;
    int need = HEADER_LENGTH + Math.max(withChecksums, maxCompressed);
    if (out.length < need) {
      out = new byte[Math.max(need, out.length * 2)];
    }
    int flags;
    int stored;
    boolean tryNow = incompressible < SKIP_AFTER || ++sinceProbe >= PROBE_EVERY;
    if (tryNow) {
      sinceProbe = 0;
    }
    if (tryNow && dictionary != null && (stored = encodeRecords(withChecksums)) > 0) {
      flags = FLAG_ZSTD_RECORDS;
      incompressible = 0;
    } else {
      boolean lz4 = false;
      int compressed = 0;
      if (tryNow && dictionary == null) {
        compressed = COMPRESSOR.compress(records, rawStart, rawLen, out, HEADER_LENGTH, maxCompressed);
        lz4 = compressed <= rawLen - rawLen / 16 && compressed < rawLen;
      }
      if (tryNow) {
        incompressible = lz4 ? 0 : incompressible + 1;
      }
      stored = lz4 ? compressed : withChecksums;
      flags = lz4 ? FLAG_LZ4 : FLAG_RECORD_CRCS;
      if (!lz4) {
        System.arraycopy(records, rawStart, out, HEADER_LENGTH, rawLen);
        int crcs = HEADER_LENGTH + rawLen;
        for (int i = 0; i < count; i++) {
          int end = i + 1 < count ? starts[i + 1] : recordsLength;
          BigEndian.putInt(out, crcs + i * RECORD_CRC,
              RecordChecksum.of(records, TABLE_RESERVE + starts[i], TABLE_RESERVE + end, firstSequence + i));
        }
      }
    }
    BigEndian.putInt(out, STORED_LENGTH, stored);
    BigEndian.putInt(out, RAW_LENGTH, rawLen);
    BigEndian.putShort(out, RECORD_COUNT, count);
    out[FLAGS] = (byte) flags;
    out[RESERVED] = 0;
    BigEndian.putLong(out, FIRST_SEQUENCE, firstSequence);
    int crc = Checksums.crc32c(out, STORED_LENGTH, HEADER_LENGTH - STORED_LENGTH + stored);
    BigEndian.putInt(out, CRC, crc);

    lastCrc = crc;
    lastRawLength = rawLen;
    lastCount = count;
    lastFirstSequence = firstSequence;
    count = 0;
    recordsLength = 0;
    return ByteBuffer.wrap(out, 0, HEADER_LENGTH + stored);
  }

  /**
   * Encodes the open block's records one by one with the dictionary into {@link #out}'s payload
   * ({@link io.docstore.queue.format.BlockFormat#FLAG_ZSTD_RECORDS} layout, record checksums
   * included); its stored length, or 0 if that does not save 1/16 of {@code uncompressed}.
   */
  private int encodeRecords(int uncompressed) {
    int need = HEADER_LENGTH + ZSTD_TABLE + count * (OFFSET_ENTRY + RECORD_CRC + ZRECORD_BODY);
    for (int i = 0; i < count; i++) {
      int end = i + 1 < count ? starts[i + 1] : recordsLength;
      need += RecordDictionary.bound(end - starts[i] - RECORD_BODY);
    }
    if (out.length < need) {
      out = new byte[Math.max(need, out.length * 2)];
    }
    int limit = uncompressed - uncompressed / 16;
    int payload = HEADER_LENGTH;
    BigEndian.putInt(out, payload + ZSTD_DICT_ID, dictionary.id());
    int at = ZSTD_TABLE + count * OFFSET_ENTRY;
    for (int i = 0; i < count; i++) {
      int from = TABLE_RESERVE + starts[i];
      int bodyLength = (i + 1 < count ? starts[i + 1] : recordsLength) - starts[i] - RECORD_BODY;
      BigEndian.putInt(out, payload + ZSTD_TABLE + i * OFFSET_ENTRY, at);
      int p = payload + at;
      System.arraycopy(records, from, out, p, RECORD_BODY);
      BigEndian.putInt(out, p + ZRECORD_BODY_LENGTH, bodyLength);
      int body = p + ZRECORD_BODY;
      int z = bodyLength == 0 ? 0
          : zstd.compressByteArray(out, body, out.length - body, records, from + RECORD_BODY, bodyLength);
      if (z >= bodyLength) {
        System.arraycopy(records, from + RECORD_BODY, out, body, bodyLength);
        z = bodyLength;
      }
      at += ZRECORD_BODY + z;
      if (at + count * RECORD_CRC > limit) {
        return 0;
      }
    }
    int crcs = payload + at;
    for (int i = 0; i < count; i++) {
      int start = BigEndian.getInt(out, payload + ZSTD_TABLE + i * OFFSET_ENTRY);
      int end = i + 1 < count ? BigEndian.getInt(out, payload + ZSTD_TABLE + (i + 1) * OFFSET_ENTRY) : at;
      BigEndian.putInt(out, crcs + i * RECORD_CRC, RecordChecksum.of(out, payload + start, payload + end, firstSequence + i));
    }
    return at + count * RECORD_CRC;
  }

  /** The crc field of the block last returned by {@link #finish}. */
  public int lastCrc() {
    return lastCrc;
  }

  public int lastRawLength() {
    return lastRawLength;
  }

  /** Sequence of the last record of the block last returned by {@link #finish}. */
  public long lastSequence() {
    return lastFirstSequence + lastCount - 1;
  }
}
