package io.docstore.queue.block;

import io.docstore.io.cache.SlotCache;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A bounded cache of verified, decoded blocks, off the Java heap in a {@link SlotCache} (CLOCK
 * eviction, admission on a block's second miss, no per-entry objects). Keys are block keys ({@link
 * io.docstore.queue.format.Address#blockKey}). A hit copies out only the one record asked for,
 * never the block. Off by default: the OS page cache already holds the stored blocks, and a hit
 * here saves a read, a checksum and a decompression (see docs/decisions.md). With mapped reads the
 * queue puts only compressed blocks here: an uncompressed one is read in place.
 *
 * <p>Slot layout (big-endian, like the block format): {@code count:u32 rawLength:u32
 * firstSequence:u64 raw}, where {@code raw} is the block's decoded payload (offset table, records).
 * A block whose raw payload is larger than the block size (one oversized record) is not cached.
 *
 * <p>Records of blocks stored one by one (segment format 3) are read in place, so their blocks are
 * never cached here; the cache keeps such <em>records</em> instead, decompressed, keyed by record
 * address, in slots of {@value #BODY_SLOT} bytes ({@code id:u64 acceptedAtMillis:u64 sequence:u64
 * op:u8 body}; a record that does not fit is not cached): a hit answers without reading the block.
 * Three quarters of the budget go to bodies, one quarter to blocks (only LZ4 blocks remain: those
 * of version 1 and 2 segments, and of a queue's first segment).
 *
 * <p>Thread-safe. Readers get the slot through {@link #read}; the accessors below check every
 * offset against the slot, since an optimistic read may see a slot being refilled (the cache then
 * retries under its lock and drops what the torn read produced).
 */
public final class BlockCache {

  static final int COUNT = 0;
  static final int RAW_LENGTH = 4;
  static final int FIRST_SEQUENCE = 8;
  public static final int HEADER = 16;

  /** Bytes of a slot holding one decompressed record. */
  public static final int BODY_SLOT = 2048;

  public static final int RECORD_ID = 0;
  public static final int RECORD_ACCEPTED_AT = 8;
  public static final int RECORD_SEQUENCE = 16;
  public static final int RECORD_OP = 24;

  /** Bytes before the body in a record slot. */
  public static final int RECORD_HEADER = 25;

  private final SlotCache slots;
  private final SlotCache bodies;
  private final java.util.concurrent.atomic.LongAdder recordMisses =
      new java.util.concurrent.atomic.LongAdder();

  /** {@code maxBytes} of slots: for blocks of up to {@code blockSize} raw bytes, and for bodies. */
  public BlockCache(long maxBytes, int blockSize) {
    long forBlocks = Math.max(maxBytes / 4, HEADER + blockSize);
    this.slots = new SlotCache(forBlocks, HEADER + blockSize, ByteOrder.BIG_ENDIAN);
    this.bodies =
        maxBytes - forBlocks >= BODY_SLOT
            ? new SlotCache(maxBytes - forBlocks, BODY_SLOT, ByteOrder.BIG_ENDIAN)
            : null;
  }

  /**
   * The length of the cached record at {@code address} (slot layout above, {@link #RECORD_HEADER}
   * bytes then the body), handed to {@code copier} to copy out (it may be called again if the slot
   * changes meanwhile), or {@link SlotCache#MISS}.
   */
  public long readRecord(long address, SlotCache.LongReader copier) {
    return bodies == null ? SlotCache.MISS : bodies.getLong(address, copier, address);
  }

  /**
   * Offers the decompressed record at {@code address}: {@code src[off, off+len)} in the slot
   * layout. Called after a miss (which this counts: a lookup that then found an LZ4 block is not a
   * miss of the record slots).
   */
  public void putRecord(long address, ByteBuffer src, int off, int len) {
    recordMisses.increment();
    if (bodies != null && len <= BODY_SLOT) {
      bodies.put(address, src, off, len);
    }
  }

  /** The reader's answer for the cached block {@code key} (null if not cached). */
  public <T> T read(long key, SlotCache.Reader<T> reader, long arg) {
    return slots.get(key, reader, arg);
  }

  /**
   * Offers a verified block read from its file; stored on its second miss once the cache is full.
   */
  public void put(long key, DecodedBlock block) {
    int raw = block.rawLength();
    if (HEADER + raw > slots.slotSize()) {
      return;
    }
    slots.put(
        key,
        HEADER + raw,
        (slab, off) -> {
          slab.putInt(off + COUNT, block.count());
          slab.putInt(off + RAW_LENGTH, raw);
          slab.putLong(off + FIRST_SEQUENCE, block.firstSequence());
          slab.put(off + HEADER, block.raw, 0, raw);
        });
  }

  public SlotCache slots() {
    return slots;
  }

  /** Bytes of slots holding a block or a body. */
  public long bytes() {
    return slots.bytesUsed() + (bodies == null ? 0 : bodies.bytesUsed());
  }

  /**
   * Reads of a block the block slots did not hold, and of a record the record slots did not hold.
   */
  public long misses() {
    return slots.misses() + recordMisses.sum();
  }

  public long evictions() {
    return slots.evictions() + (bodies == null ? 0 : bodies.evictions());
  }

  public long capacityBytes() {
    return slots.capacityBytes() + (bodies == null ? 0 : bodies.capacityBytes());
  }

  /** Records in the cached block at {@code off}. */
  public static int count(ByteBuffer slab, int off) {
    return slab.getInt(off + COUNT);
  }

  public static long firstSequence(ByteBuffer slab, int off) {
    return slab.getLong(off + FIRST_SEQUENCE);
  }

  /**
   * Raw payload bytes of the cached block at {@code off}, checked against the slot's length {@code
   * len}.
   */
  public static int rawLength(ByteBuffer slab, int off, int len) {
    int raw = slab.getInt(off + RAW_LENGTH);
    if (raw < 0 || raw > len - HEADER) {
      throw new IllegalStateException("cached block of " + raw + " raw bytes in a slot of " + len);
    }
    return raw;
  }
}
