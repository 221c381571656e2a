package io.docstore.queue.block;

import static io.docstore.queue.format.BlockFormat.*;

import com.github.luben.zstd.ZstdCompressCtx;
import io.docstore.io.Checksums;
import io.docstore.queue.format.Address;
import java.io.Closeable;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.CRC32C;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;

/**
 * Gathers records into one block and encodes it (layout in {@link
 * io.docstore.queue.format.BlockFormat}):
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
 * record. A block's stored size stays within the block size either way: each record is counted with
 * its checksum ({@link io.docstore.queue.format.BlockFormat#storedRecordCost}).
 *
 * <p>Incompressible data (random bytes, already compressed bodies) is not compressed in vain on
 * every block: after {@value #SKIP_AFTER} blocks in a row that LZ4 could not shrink enough, only
 * every {@value #PROBE_EVERY}th block is tried until one compresses. Those blocks would have been
 * stored raw anyway; the cost is that the first compressible blocks after a run of incompressible
 * ones may be stored raw too (at most {@value #PROBE_EVERY} - 1 of them).
 *
 * <p><b>Records mode</b> (segment format 3): with a {@link RecordDictionary} ({@link
 * #useDictionary}), or while LZ4 cannot shrink blocks, the block stores its records one by one
 * ({@link io.docstore.queue.format.BlockFormat#FLAG_ZSTD_RECORDS}): each body compressed on its own
 * with the dictionary, or as it is when that does not make it smaller (after {@value
 * #SKIP_RECORDS_AFTER} such bodies in a row only every {@value #RECORD_PROBE_EVERY}th is tried). A
 * reader of one record then checks and decompresses just that record, and, since {@link #stage}
 * tells each record's stored cost before it is added, the writer can keep a block within one 4 KiB
 * page and pad it to the page's end ({@link #finish(int)}).
 *
 * <p>Not thread-safe: owned by the writer, used under its lock. Buffers are reused across blocks.
 * {@link #close} frees the compression context of a dictionary.
 */
public final class BlockBuilder implements Closeable {

  private static final LZ4Compressor COMPRESSOR = LZ4Factory.fastestInstance().fastCompressor();

  /** Blocks in a row that did not compress before compression is only probed. */
  static final int SKIP_AFTER = 8;

  /** Records in a row whose body did not compress before a record's compression is only probed. */
  static final int SKIP_RECORDS_AFTER = 64;

  /**
   * While probing, one record in this many is tried: a try of zstd on a small incompressible body
   * costs about 1.5 us, so probing 1 in 16 cost incompressible writes a third of their speed.
   */
  static final int RECORD_PROBE_EVERY = 256;

  /** While probing, one block in this many is tried. */
  static final int PROBE_EVERY = 16;

  /**
   * Records are encoded at {@link #TABLE_RESERVE} onwards; the offset table is written just before
   * them at {@link #finish}, so the raw payload is contiguous without a copy.
   */
  private static final int TABLE_RESERVE = OFFSET_ENTRY * Address.MAX_RECORDS_PER_BLOCK;

  /** LZ4 mode: the raw records from {@link #TABLE_RESERVE} on. */
  private byte[] recordBytes = new byte[TABLE_RESERVE + 8192];

  private int recordsLength;

  /** Whether the open block stores its records one by one (chosen when its first record comes). */
  private boolean records;

  /**
   * Records mode: the stored records back to back, their length, and the sum of their raw sizes.
   */
  private byte[] zRecords = new byte[8192];

  private int zLength;
  private int rawRecords;

  /**
   * The body last prepared by {@link #stage} and, unless -1, its compressed length in {@link
   * #staged}.
   */
  private byte[] staged = new byte[8192];

  private byte[] stagedBody;
  private int stagedOff;
  private int stagedLen;
  private int stagedZ;
  private int stagedCost;
  private RecordDictionary stagedDictionary;

  /** Whether the staged body is a RELOCATED record's, stored split ({@link #stageRelocated}). */
  private boolean stagedSplit;

  /** Records in a row whose body did not compress, and records not tried since the last probe. */
  private int plainInARow;

  private int sinceRecordProbe;

  private int[] starts = new int[64];
  private int count;
  private long firstSequence;
  private byte[] out = new byte[8192];

  /** {@link #out} as a buffer (big-endian), rewrapped when it grows. */
  private ByteBuffer outView = ByteBuffer.wrap(out);

  private static final byte[] ZEROS = new byte[4096];

  /** Reused for checksums: encoding a block allocates nothing once its buffers are large enough. */
  private final RecordChecksum recordCrc = new RecordChecksum();

  private final CRC32C blockCrc = new CRC32C();
  private ByteBuffer blockCrcView;
  private ByteBuffer blockCrcOf;

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

  /**
   * A block of {@code gap} bytes (at least {@code HEADER_LENGTH + 1}) that holds no record, only
   * zero bytes: it fills the rest of a page so that the next block starts on one.
   */
  public static ByteBuffer paddingBlock(int gap, long nextSequence) {
    byte[] b = new byte[gap];
    int stored = gap - HEADER_LENGTH;
    BigEndian.putInt(b, STORED_LENGTH, stored);
    BigEndian.putInt(b, RAW_LENGTH, stored);
    BigEndian.putShort(b, RECORD_COUNT, 0);
    b[FLAGS] = (byte) FLAG_PADDING;
    BigEndian.putLong(b, FIRST_SEQUENCE, nextSequence);
    BigEndian.putInt(b, CRC, Checksums.crc32c(b, STORED_LENGTH, gap - STORED_LENGTH));
    return ByteBuffer.wrap(b);
  }

  /**
   * A sync mark (format 4): a record-free block saying that every byte of its segment before {@code
   * syncedEnd} had been forced when it was written; its sequence field is the next record's.
   */
  public static ByteBuffer markBlock(long syncedEnd, long nextSequence) {
    byte[] b = new byte[HEADER_LENGTH + MARK_PAYLOAD];
    BigEndian.putInt(b, STORED_LENGTH, MARK_PAYLOAD);
    BigEndian.putInt(b, RAW_LENGTH, MARK_PAYLOAD);
    BigEndian.putShort(b, RECORD_COUNT, 0);
    b[FLAGS] = (byte) FLAG_SYNC_MARK;
    BigEndian.putLong(b, FIRST_SEQUENCE, nextSequence);
    BigEndian.putLong(b, HEADER_LENGTH + MARK_SYNCED_END, syncedEnd);
    BigEndian.putInt(b, CRC, Checksums.crc32c(b, STORED_LENGTH, b.length - STORED_LENGTH));
    return ByteBuffer.wrap(b);
  }

  public boolean isEmpty() {
    return count == 0;
  }

  public int count() {
    return count;
  }

  /**
   * Whether the open block stores its records one by one (format 3), so its stored size is known as
   * it fills.
   */
  public boolean recordsMode() {
    return count > 0 ? records : chooseRecordsMode();
  }

  /**
   * Payload bytes of the block so far: exact in records mode; in LZ4 mode as if stored uncompressed
   * (offset table and record checksums included).
   */
  public int storedLength() {
    if (count > 0 && records) {
      return ZSTD_TABLE + OFFSET_ENTRY + zLength + count * (OFFSET_ENTRY + RECORD_CRC);
    }
    return count * (OFFSET_ENTRY + RECORD_CRC) + recordsLength;
  }

  /**
   * Whether a record with this body can join the block without making its payload exceed {@code
   * blockSize}.
   */
  public boolean fits(int bodyLength, int blockSize) {
    return fits(count, storedLength(), bodyLength, blockSize);
  }

  /**
   * {@link #fits} for a block of {@code count} records taking {@code storedLength} bytes (the sum
   * of their {@link io.docstore.queue.format.BlockFormat#storedRecordCost}): lets a caller plan
   * block boundaries before any record is copied.
   */
  public static boolean fits(int count, int storedLength, int bodyLength, int blockSize) {
    return count == 0
        || (count < Address.MAX_RECORDS_PER_BLOCK
            && storedLength + storedRecordCost(bodyLength) <= blockSize);
  }

  /**
   * In records mode: whether a record costing {@code cost} (from {@link #stage}) keeps the block
   * within {@code capacity}.
   */
  public boolean fitsStored(int cost, int capacity) {
    return count == 0
        || (count < Address.MAX_RECORDS_PER_BLOCK
            && HEADER_LENGTH + storedLength() + cost <= capacity);
  }

  /** Whether no further record, not even one with an empty body, can join. */
  public boolean full(int blockSize) {
    return !fits(0, blockSize);
  }

  /** Bytes the block takes once written (header included) if finished now, without padding. */
  public int blockLength() {
    return HEADER_LENGTH + storedLength();
  }

  /**
   * Prepares the next record's body ({@code body[off, off+len)}) for the open block, or for the
   * next one if the builder is empty (which then chooses the block's mode): compresses it with the
   * dictionary if there is one. Returns the bytes the record will add to the stored block in
   * records mode (offset entry, checksum, header, stored body), or -1 in LZ4 mode, where the stored
   * size is known only when the whole block is compressed. {@link #add} with the same body uses the
   * prepared bytes.
   */
  public int stage(byte[] body, int off, int len) {
    if (count == 0) {
      records = chooseRecordsMode();
    }
    if (!records) {
      stagedBody = null;
      return -1;
    }
    if (stagedBody == body
        && stagedOff == off
        && stagedLen == len
        && stagedDictionary == dictionary
        && !stagedSplit) {
      return stagedCost; // prepared already (the block it was meant for was full)
    }
    int z = -1;
    if (dictionary != null
        && len > 0
        && (plainInARow < SKIP_RECORDS_AFTER || ++sinceRecordProbe >= RECORD_PROBE_EVERY)) {
      sinceRecordProbe = 0;
      int bound = RecordDictionary.bound(len);
      if (staged.length < bound) {
        staged = new byte[Math.max(bound, staged.length * 2)];
      }
      z = zstd.compressByteArray(staged, 0, staged.length, body, off, len);
      if (z >= len) {
        z = -1;
      }
      plainInARow = z < 0 ? plainInARow + 1 : 0;
    }
    return prepared(body, off, len, z);
  }

  /**
   * Records {@code body[off, off+len)} as the body prepared for the next record, stored as it is
   * ({@code z < 0}) or as the {@code z} bytes at the start of {@link #staged}; returns its cost.
   */
  private int prepared(byte[] body, int off, int len, int z) {
    stagedSplit = false;
    stagedBody = body;
    stagedOff = off;
    stagedLen = len;
    stagedZ = z;
    stagedDictionary = dictionary;
    stagedCost = OFFSET_ENTRY + RECORD_CRC + ZRECORD_BODY + (z < 0 ? len : z);
    return stagedCost;
  }

  /**
   * {@link #stage} of a whole body compressed ahead ({@link RecordDictionary#compress}): its stored
   * bytes are copied when they are plain or of this builder's dictionary; otherwise (no dictionary
   * yet, another one, LZ4 mode) the body is prepared as {@link #stage} does.
   *
   * @param stored {@code body} as stored, or null
   */
  public int stage(byte[] body, StoredBody stored) {
    if (count == 0) {
      records = chooseRecordsMode();
    }
    int len = body.length;
    if (stored == null
        || !records
        || dictionary == null
        || stored.length() != len
        || !(stored.plain() || stored.dictionaryId() == dictionary.id())) {
      return stage(body, 0, len);
    }
    if (stagedBody == body
        && stagedOff == 0
        && stagedLen == len
        && stagedDictionary == dictionary
        && !stagedSplit) {
      return stagedCost;
    }
    int z = -1;
    if (!stored.plain()) {
      z = stored.bytes().length;
      if (staged.length < z) {
        staged = new byte[Math.max(z, staged.length * 2)];
      }
      System.arraycopy(stored.bytes(), 0, staged, 0, z);
    }
    return prepared(body, 0, len, z);
  }

  /**
   * {@link #stage} for a RELOCATED record's body ({@code body}: its fixed part, then the original
   * record's body): with a dictionary, the record is stored split ({@link
   * io.docstore.queue.format.BlockFormat#OP_RELOCATED_SPLIT}), its fixed part as it is and its rest
   * on its own. The rest is {@code rest} as stored when that is plain or compressed with this
   * builder's dictionary (copied, not compressed again; the same bytes compressing the rest would
   * give), else compressed here. Without a dictionary, or in LZ4 mode, as {@link #stage}.
   *
   * @param rest the original record's body as its block stores it, or null
   */
  public int stageRelocated(byte[] body, StoredBody rest) {
    if (count == 0) {
      records = chooseRecordsMode();
    }
    if (!records || dictionary == null || body.length < RELOCATED_FIXED) {
      return stage(body, 0, body.length);
    }
    if (stagedBody == body && stagedDictionary == dictionary && stagedSplit) {
      return stagedCost;
    }
    int len = body.length;
    int restLength = len - RELOCATED_FIXED;
    int bound = RELOCATED_FIXED + Math.max(RecordDictionary.bound(restLength), restLength);
    if (staged.length < bound) {
      staged = new byte[Math.max(bound, staged.length * 2)];
    }
    int z;
    if (rest != null && rest.length() == restLength && rest.plain()) {
      z = restLength; // stored as it is: the body's own bytes
      System.arraycopy(body, RELOCATED_FIXED, staged, RELOCATED_FIXED, restLength);
    } else if (rest != null
        && rest.length() == restLength
        && rest.dictionaryId() == dictionary.id()) {
      z = rest.bytes().length;
      System.arraycopy(rest.bytes(), 0, staged, RELOCATED_FIXED, z);
    } else {
      z =
          restLength == 0
              ? 0
              : zstd.compressByteArray(
                  staged,
                  RELOCATED_FIXED,
                  staged.length - RELOCATED_FIXED,
                  body,
                  RELOCATED_FIXED,
                  restLength);
      if (z >= restLength) {
        z = restLength;
        System.arraycopy(body, RELOCATED_FIXED, staged, RELOCATED_FIXED, restLength);
      }
    }
    System.arraycopy(body, 0, staged, 0, RELOCATED_FIXED);
    stagedBody = body;
    stagedOff = 0;
    stagedLen = len;
    stagedZ = RELOCATED_FIXED + z;
    stagedDictionary = dictionary;
    stagedSplit = true;
    stagedCost = OFFSET_ENTRY + RECORD_CRC + ZRECORD_BODY + stagedZ;
    return stagedCost;
  }

  /**
   * Forgets a body prepared by {@link #stage} and not added: a later {@code stage} of the same
   * array prepares it again (its bytes may have changed). A writer calls this before preparing a
   * record.
   */
  public void forgetStaged() {
    stagedBody = null;
  }

  /**
   * The mode of the next block: records one by one with a dictionary; without one, records one by
   * one too while LZ4 cannot shrink blocks (stored as they are, so their size is known as the block
   * fills), probing LZ4 again every {@value #PROBE_EVERY}th block; else LZ4 over the block.
   */
  private boolean chooseRecordsMode() {
    if (dictionary != null) {
      return true;
    }
    if (incompressible < SKIP_AFTER) {
      return false;
    }
    return sinceProbe + 1 < PROBE_EVERY;
  }

  /** Adds a record and returns its index in the block. Sequences must be consecutive. */
  public int add(long sequence, long id, long acceptedAtMillis, byte op, byte[] body) {
    return add(sequence, id, acceptedAtMillis, op, body, 0, body.length);
  }

  /** Adds a record whose body is {@code body[off, off+len)} and returns its index in the block. */
  public int add(
      long sequence, long id, long acceptedAtMillis, byte op, byte[] body, int off, int len) {
    if (count == 0) {
      firstSequence = sequence;
      if (stagedBody != body
          || stagedOff != off
          || stagedLen != len
          || stagedDictionary != dictionary) {
        records = chooseRecordsMode();
      }
    } else if (sequence != firstSequence + count) {
      throw new IllegalStateException(
          "sequence " + sequence + " does not follow " + (firstSequence + count - 1));
    }
    if (records) {
      return addRecord(id, acceptedAtMillis, op, body, off, len);
    }
    int need = recordsLength + RECORD_BODY + len;
    if (TABLE_RESERVE + need > this.recordBytes.length) {
      this.recordBytes =
          Arrays.copyOf(
              this.recordBytes, Math.max(TABLE_RESERVE + need, this.recordBytes.length * 2));
    }
    if (count == starts.length) {
      starts = Arrays.copyOf(starts, count * 2);
    }
    starts[count] = recordsLength;
    int p = TABLE_RESERVE + recordsLength;
    BigEndian.putLong(this.recordBytes, p + RECORD_ID, id);
    BigEndian.putLong(this.recordBytes, p + RECORD_ACCEPTED_AT, acceptedAtMillis);
    this.recordBytes[p + RECORD_OP] = op;
    System.arraycopy(body, off, this.recordBytes, p + RECORD_BODY, len);
    recordsLength = need;
    return count++;
  }

  /**
   * Records mode: appends the record, its body as prepared by {@link #stage} (prepared again if it
   * was not).
   */
  private int addRecord(long id, long acceptedAtMillis, byte op, byte[] body, int off, int len) {
    if (stagedBody != body
        || stagedOff != off
        || stagedLen != len
        || stagedDictionary != dictionary) {
      stage(body, off, len);
    }
    int storedBody = stagedZ < 0 ? len : stagedZ;
    int need = zLength + ZRECORD_BODY + storedBody;
    if (need > zRecords.length) {
      zRecords = Arrays.copyOf(zRecords, Math.max(need, zRecords.length * 2));
    }
    if (count == starts.length) {
      starts = Arrays.copyOf(starts, count * 2);
    }
    starts[count] = zLength;
    int p = zLength;
    BigEndian.putLong(zRecords, p + RECORD_ID, id);
    BigEndian.putLong(zRecords, p + RECORD_ACCEPTED_AT, acceptedAtMillis);
    zRecords[p + RECORD_OP] = stagedSplit ? OP_RELOCATED_SPLIT : op;
    BigEndian.putInt(zRecords, p + ZRECORD_BODY_LENGTH, len);
    if (stagedZ < 0) {
      System.arraycopy(body, off, zRecords, p + ZRECORD_BODY, len);
    } else {
      System.arraycopy(staged, 0, zRecords, p + ZRECORD_BODY, stagedZ);
    }
    zLength = need;
    rawRecords += RECORD_BODY + len;
    stagedBody = null;
    stagedSplit = false;
    return count++;
  }

  /**
   * Encodes the block and empties the builder. The returned buffer (position 0, limit = block
   * length) is valid until the next call.
   */
  public ByteBuffer finish() {
    return finish(0);
  }

  /**
   * {@link #finish}, the block's payload followed by {@code pad} zero bytes (records mode only), so
   * that it ends on a page boundary and the next block starts on one.
   */
  public ByteBuffer finish(int pad) {
    checkPad(pad);
    int length;
    if (count > 0 && records) {
      ensureOut(HEADER_LENGTH + finishedPayload(pad));
      length = finishTo(outView, 0, pad);
    } else {
      length = finishLz4();
    }
    return ByteBuffer.wrap(out, 0, length);
  }

  /**
   * The most bytes {@link #finishTo} writes for the open block with {@code pad} bytes of padding:
   * exact in records mode, an upper bound in LZ4 mode.
   */
  public int finishedLength(int pad) {
    if (count > 0 && records) {
      return HEADER_LENGTH + finishedPayload(pad);
    }
    int rawLen = count * OFFSET_ENTRY + recordsLength;
    return HEADER_LENGTH
        + Math.max(rawLen + count * RECORD_CRC, COMPRESSOR.maxCompressedLength(rawLen));
  }

  /**
   * {@link #finish(int)} written straight into {@code dst} at absolute index {@code at} (a block of
   * records stored one by one is encoded there, with no intermediate copy); the block's length.
   * {@code dst} needs {@link #finishedLength} bytes from {@code at}; its position does not move.
   */
  public int finishTo(ByteBuffer dst, int at, int pad) {
    if (count == 0) {
      throw new IllegalStateException("empty block");
    }
    checkPad(pad);
    if (!records) {
      int length = finishLz4();
      dst.put(at, out, 0, length);
      return length;
    }
    int rawLen = count * OFFSET_ENTRY + rawRecords;
    int stored = encodeRecords(dst, at + HEADER_LENGTH, pad);
    if (dictionary == null) {
      sinceProbe++;
    }
    return header(dst, at, stored, rawLen, FLAG_ZSTD_RECORDS);
  }

  private void checkPad(int pad) {
    if (pad != 0 && count > 0 && !records) {
      throw new IllegalStateException("only a block of records stored one by one is padded");
    }
  }

  private int finishedPayload(int pad) {
    return ZSTD_TABLE + (count + 1) * OFFSET_ENTRY + count * RECORD_CRC + zLength + pad;
  }

  private void ensureOut(int need) {
    if (out.length < need) {
      out = new byte[Math.max(need, out.length * 2)];
      outView = ByteBuffer.wrap(out);
    }
  }

  /** LZ4 mode: encodes the block into {@link #out}; its length. */
  private int finishLz4() {
    if (count == 0) {
      throw new IllegalStateException("empty block");
    }
    int table = count * OFFSET_ENTRY;
    int rawLen = table + recordsLength;
    int rawStart = TABLE_RESERVE - table;
    for (int i = 0; i < count; i++) {
      BigEndian.putInt(recordBytes, rawStart + i * OFFSET_ENTRY, table + starts[i]);
    }
    int maxCompressed = COMPRESSOR.maxCompressedLength(rawLen);
    int withChecksums = rawLen + count * RECORD_CRC;
    ensureOut(HEADER_LENGTH + Math.max(withChecksums, maxCompressed));
    sinceProbe = 0;
    int compressed =
        COMPRESSOR.compress(recordBytes, rawStart, rawLen, out, HEADER_LENGTH, maxCompressed);
    boolean lz4 = compressed <= rawLen - rawLen / 16 && compressed < rawLen;
    incompressible = lz4 ? 0 : incompressible + 1;
    int stored = lz4 ? compressed : withChecksums;
    if (!lz4) {
      System.arraycopy(recordBytes, rawStart, out, HEADER_LENGTH, rawLen);
      int crcs = HEADER_LENGTH + rawLen;
      for (int i = 0; i < count; i++) {
        int end = i + 1 < count ? starts[i + 1] : recordsLength;
        BigEndian.putInt(
            out,
            crcs + i * RECORD_CRC,
            recordCrc.compute(
                recordBytes, TABLE_RESERVE + starts[i], TABLE_RESERVE + end, firstSequence + i));
      }
    }
    return header(outView, 0, stored, rawLen, lz4 ? FLAG_LZ4 : FLAG_RECORD_CRCS);
  }

  /**
   * Writes the header of the block at {@code at} of {@code dst}, whose payload of {@code stored}
   * bytes is in place, computes its checksum, remembers what {@link #lastCrc} and the others
   * report, and empties the builder; the block's length.
   */
  private int header(ByteBuffer dst, int at, int stored, int rawLen, int flags) {
    dst.putInt(at + STORED_LENGTH, stored);
    dst.putInt(at + RAW_LENGTH, rawLen);
    dst.putShort(at + RECORD_COUNT, (short) count);
    dst.put(at + FLAGS, (byte) flags);
    dst.put(at + RESERVED, (byte) 0);
    dst.putLong(at + FIRST_SEQUENCE, firstSequence);
    blockCrc.reset();
    if (blockCrcOf != dst) {
      blockCrcView = dst.duplicate();
      blockCrcOf = dst;
    }
    blockCrcView.clear();
    blockCrcView.position(at + STORED_LENGTH).limit(at + HEADER_LENGTH + stored);
    blockCrc.update(blockCrcView);
    blockCrcView.clear();
    int crc = Checksums.mask((int) blockCrc.getValue());
    dst.putInt(at + CRC, crc);

    lastCrc = crc;
    lastRawLength = rawLen;
    lastCount = count;
    lastFirstSequence = firstSequence;
    count = 0;
    recordsLength = 0;
    zLength = 0;
    rawRecords = 0;
    return HEADER_LENGTH + stored;
  }

  /**
   * Records mode: lays out the payload at {@code payload} of {@code dst} (dictionary id, offset
   * table of count + 1 entries, record checksums, records, {@code pad} zero bytes); its stored
   * length.
   */
  private int encodeRecords(ByteBuffer dst, int payload, int pad) {
    int table = ZSTD_TABLE + (count + 1) * OFFSET_ENTRY;
    int first = table + count * RECORD_CRC;
    int stored = first + zLength + pad;
    dst.putInt(payload + ZSTD_DICT_ID, dictionary == null ? 0 : dictionary.id());
    dst.put(payload + first, zRecords, 0, zLength);
    for (int i = 0; i <= count; i++) {
      dst.putInt(
          payload + ZSTD_TABLE + i * OFFSET_ENTRY, first + (i < count ? starts[i] : zLength));
    }
    for (int i = 0; i < count; i++) {
      int end = i + 1 < count ? starts[i + 1] : zLength;
      dst.putInt(
          payload + table + i * RECORD_CRC,
          recordCrc.compute(zRecords, starts[i], end, firstSequence + i));
    }
    for (int p = payload + first + zLength, endPad = payload + stored; p < endPad; ) {
      int n = Math.min(ZEROS.length, endPad - p);
      dst.put(p, ZEROS, 0, n);
      p += n;
    }
    return stored;
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
