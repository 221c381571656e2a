package io.docstore.queue.block;

import io.docstore.io.cache.SlotCache;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A bounded cache of verified, decoded blocks, off the Java heap in a {@link SlotCache} (CLOCK
 * eviction, admission on a block's second miss, no per-entry objects). Keys are block keys
 * ({@link io.docstore.queue.format.Address#blockKey}). A hit copies out only the one record asked
 * for, never the block. Off by default: the OS page cache already holds the stored blocks, and a
 * hit here saves a read, a checksum and a decompression (see docs/decisions.md). With mapped reads
 * the queue puts only compressed blocks here: an uncompressed one is read in place.
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

  /** Raw payload bytes of the cached block at {@code off}, checked against the slot's length {@code len}. */
  public static int rawLength(ByteBuffer slab, int off, int len) {
    int raw = slab.getInt(off + RAW_LENGTH);
    if (raw < 0 || raw > len - HEADER) {
      throw new IllegalStateException("cached block of " + raw + " raw bytes in a slot of " + len);
    }
    return raw;
  }
}
