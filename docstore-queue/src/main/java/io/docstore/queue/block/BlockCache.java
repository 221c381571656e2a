package io.docstore.queue.block;

import static io.docstore.queue.format.BlockFormat.OFFSET_ENTRY;
import static io.docstore.queue.format.BlockFormat.RECORD_BODY;

import io.docstore.io.cache.SlotCache;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A bounded cache of verified, decoded blocks, off the Java heap in a {@link SlotCache} (CLOCK
 * eviction, admission on a block's second miss, no per-entry objects). Keys are block keys
 * ({@link io.docstore.queue.format.Address#blockKey}). A hit copies out only the one record asked
 * for, never the block. Off by default: the OS page cache already holds the stored blocks, and a
 * hit here saves a positional read, a checksum and a decompression (see docs/decisions.md).
 *
 * <p>Slot layout (big-endian, like the block format): {@code count:u32 rawLength:u32
 * firstSequence:u64 raw}, where {@code raw} is the block's decoded payload (offset table, records).
 * A block whose raw payload is larger than the block size (one oversized record) is not cached.
 *
 * <p>Thread-safe. Readers get the slot through {@link #read}; the accessors below check every
 * offset against the slot, since an optimistic read may see a slot being refilled (the cache
 * then retries under its lock and drops what the torn read produced).
 */
public final class BlockCache {

  static final int COUNT = 0;
  static final int RAW_LENGTH = 4;
  static final int FIRST_SEQUENCE = 8;
  public static final int HEADER = 16;

  private final SlotCache slots;

  /** {@code maxBytes} of slots, each holding one block of up to {@code blockSize} raw bytes. */
  public BlockCache(long maxBytes, int blockSize) {
    this.slots = new SlotCache(maxBytes, HEADER + blockSize, ByteOrder.BIG_ENDIAN);
  }

  /** The reader's answer for the cached block {@code key} (null if not cached). */
  public <T> T read(long key, SlotCache.Reader<T> reader, long arg) {
    return slots.get(key, reader, arg);
  }

  /** Offers a verified block read from its file; stored on its second miss once the cache is full. */
  public void put(long key, DecodedBlock block) {
    int raw = block.rawLength();
    if (HEADER + raw > slots.slotSize()) {
      return;
    }
    slots.put(key, HEADER + raw, (slab, off) -> {
      slab.putInt(off + COUNT, block.count());
      slab.putInt(off + RAW_LENGTH, raw);
      slab.putLong(off + FIRST_SEQUENCE, block.firstSequence());
      slab.put(off + HEADER, block.raw, 0, raw);
    });
  }

  public SlotCache slots() {
    return slots;
  }

  /** Bytes of slots holding a block. */
  public long bytes() {
    return slots.bytesUsed();
  }

  /** Records in the cached block at {@code off}. */
  public static int count(ByteBuffer slab, int off) {
    return slab.getInt(off + COUNT);
  }

  public static long firstSequence(ByteBuffer slab, int off) {
    return slab.getLong(off + FIRST_SEQUENCE);
  }

  /** Start of record {@code i} relative to the raw payload; checked against the slot. */
  public static int recordStart(ByteBuffer slab, int off, int len, int i) {
    int count = count(slab, off);
    int raw = slab.getInt(off + RAW_LENGTH);
    if (i < 0 || i >= count || raw > len - HEADER || count * OFFSET_ENTRY > raw) {
      throw new IllegalStateException("record " + i + " outside a cached block of " + count + " records");
    }
    int start = slab.getInt(off + HEADER + i * OFFSET_ENTRY);
    if (start < count * OFFSET_ENTRY || start + RECORD_BODY > raw) {
      throw new IllegalStateException("record " + i + " starts at " + start + " outside " + raw + " raw bytes");
    }
    return start;
  }

  /** End of record {@code i} (where the next starts, or the raw length); checked against the slot. */
  public static int recordEnd(ByteBuffer slab, int off, int len, int i, int start) {
    int count = count(slab, off);
    int raw = slab.getInt(off + RAW_LENGTH);
    int end = i + 1 < count ? slab.getInt(off + HEADER + (i + 1) * OFFSET_ENTRY) : raw;
    if (end < start + RECORD_BODY || end > raw || raw > len - HEADER) {
      throw new IllegalStateException("record " + i + " ends at " + end + " outside " + start + ".." + raw);
    }
    return end;
  }
}
