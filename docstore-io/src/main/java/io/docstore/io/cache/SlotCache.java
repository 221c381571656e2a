package io.docstore.io.cache;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.StampedLock;

/**
 * A bounded cache of fixed-size byte slots keyed by {@code long}, held off the Java heap: each
 * stripe owns direct buffers cut into slots (allocated in 1 MiB chunks as slots are first filled,
 * so an idle cache costs no memory), plus a few primitive arrays (an open-addressing hash table,
 * per-slot key, length and reference bit). No object is allocated per entry, so a full cache costs
 * the garbage collector nothing.
 *
 * <p><b>Eviction</b> is CLOCK (second chance): a hit sets the slot's reference bit, the hand clears
 * bits until it finds a slot without one. <b>Admission</b> happens on a key's second miss: when the
 * stripe is full, a key not yet remembered by the small ghost filter (one remembered key per slot,
 * direct-mapped by hash) is only remembered, not stored; a key that misses again while remembered
 * is stored. A scan that touches every key once therefore leaves the cached working set alone.
 * While a stripe still has free slots every key is admitted.
 *
 * <p><b>Concurrency</b>: keys are spread over power-of-two stripes, each guarded by a {@link
 * StampedLock}. Lookups are seqlock-style: they read under an optimistic stamp, without writing any
 * shared word but the reference bit, and validate afterwards; only if a writer overlapped (or the
 * reader threw on torn bytes) do they retry under the shared read lock. So a {@link LongReader} /
 * {@link Reader} may see a slot being overwritten and must tolerate it: use absolute reads bounded
 * by the slot's {@code length}, and allocate nothing sized by slot contents beyond {@code length}.
 * Its result is used only if the stamp validated.
 *
 * <p>Counters: hits, misses, evictions, rejected admissions; bytes in use.
 */
public final class SlotCache {

  /**
   * What {@link #getLong} returns when the key is not cached; a {@link LongReader} must never
   * return it.
   */
  public static final long MISS = Long.MIN_VALUE;

  private static final int MAX_STRIPES = 16;

  /** A stripe's slots stay below 1 GiB, so offsets fit an int. */
  private static final long MAX_STRIPE_BYTES = 1L << 30;

  /**
   * Slot memory is allocated in chunks of at most this size (a power of two of slots) as slots are
   * first filled.
   */
  private static final int CHUNK_BYTES = 1 << 20;

  /** Reads a cached slot into a primitive answer. */
  @FunctionalInterface
  public interface LongReader {
    /** {@code slab} is shared: absolute reads only, in {@code [offset, offset + length)}. */
    long read(ByteBuffer slab, int offset, int length, long arg);
  }

  /** Reads a cached slot into an object (copy out what you need; the slot may be reused later). */
  @FunctionalInterface
  public interface Reader<T> {
    /** {@code slab} is shared: absolute reads only, in {@code [offset, offset + length)}. */
    T read(ByteBuffer slab, int offset, int length, long arg);
  }

  /** Writes a slot's bytes on fill. */
  @FunctionalInterface
  public interface Writer {
    /** Writes exactly the length given to {@link #put} at {@code offset} (absolute puts). */
    void write(ByteBuffer slab, int offset);
  }

  private final int slotSize;
  private final int slotCount;
  private final Stripe[] stripes;
  private final int stripeShift;
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongAdder evictions = new LongAdder();
  private final LongAdder rejections = new LongAdder();

  /**
   * @param capacityBytes total bytes of slots (rounded down to whole slots; at least one slot)
   * @param slotSize bytes per slot: the largest value cached
   * @param order byte order of the buffers readers and writers see
   */
  public SlotCache(long capacityBytes, int slotSize, ByteOrder order) {
    this(capacityBytes, slotSize, order, MAX_STRIPES);
  }

  /**
   * As above with at most {@code maxStripes} stripes (tests: one stripe makes eviction order
   * visible).
   */
  SlotCache(long capacityBytes, int slotSize, ByteOrder order, int maxStripes) {
    if (slotSize < 8) {
      throw new IllegalArgumentException("slot size must be at least 8 bytes, got " + slotSize);
    }
    if (capacityBytes < slotSize) {
      throw new IllegalArgumentException(
          "capacity " + capacityBytes + " holds no slot of " + slotSize + " bytes");
    }
    long slots = capacityBytes / slotSize;
    int n =
        (int) Math.min(Integer.highestOneBit(Math.max(1, maxStripes)), Long.highestOneBit(slots));
    long perStripe = slots / n;
    if (perStripe * slotSize > MAX_STRIPE_BYTES) {
      throw new IllegalArgumentException(
          "capacity "
              + capacityBytes
              + " exceeds "
              + n
              + " stripes of "
              + MAX_STRIPE_BYTES
              + " bytes");
    }
    this.slotSize = slotSize;
    this.slotCount = (int) (perStripe * n);
    this.stripes = new Stripe[n];
    for (int i = 0; i < n; i++) {
      stripes[i] = new Stripe((int) perStripe, slotSize, order);
    }
    this.stripeShift = 64 - Integer.numberOfTrailingZeros(n);
  }

  public int slotSize() {
    return slotSize;
  }

  public int slotCount() {
    return slotCount;
  }

  /** Bytes of slots reserved (off heap). */
  public long capacityBytes() {
    return (long) slotCount * slotSize;
  }

  /** Bytes of the slots now holding an entry. */
  public long bytesUsed() {
    long used = 0;
    for (Stripe s : stripes) {
      used += s.used;
    }
    return used * slotSize;
  }

  public long hits() {
    return hits.sum();
  }

  public long misses() {
    return misses.sum();
  }

  public long evictions() {
    return evictions.sum();
  }

  /** Fills refused by the admission filter (first miss of a key while its stripe was full). */
  public long rejections() {
    return rejections.sum();
  }

  /**
   * The hash used to spread keys over stripes and buckets (a 64-bit finaliser); shared with the
   * document cache.
   */
  public static long mix(long key) {
    long h = key;
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    h ^= h >>> 33;
    return h;
  }

  private Stripe stripe(long hash) {
    return stripes.length == 1 ? stripes[0] : stripes[(int) (hash >>> stripeShift)];
  }

  /**
   * The reader's answer for the cached slot of {@code key}, or {@link #MISS}. Counts a hit or a
   * miss. The same protocol as {@link #get}, kept as a primitive twin so the index's lookup (an
   * address) allocates nothing: a generic answer would box every hit.
   */
  public long getLong(long key, LongReader reader, long arg) {
    long h = mix(key);
    Stripe s = stripe(h);
    long stamp = s.lock.tryOptimisticRead();
    if (stamp != 0) {
      try {
        int slot = s.find(key, h);
        if (slot < 0) {
          if (s.lock.validate(stamp)) {
            misses.increment();
            return MISS;
          }
        } else {
          long v = reader.read(s.chunk(slot), s.offset(slot), s.lengths[slot], arg);
          if (s.lock.validate(stamp)) {
            s.ref[slot] = 1;
            hits.increment();
            return v;
          }
        }
      } catch (RuntimeException torn) {
        if (s.lock.validate(stamp)) {
          throw torn;
        }
      }
    }
    stamp = s.lock.readLock();
    try {
      int slot = s.find(key, h);
      if (slot < 0) {
        misses.increment();
        return MISS;
      }
      s.ref[slot] = 1;
      hits.increment();
      return reader.read(s.chunk(slot), s.offset(slot), s.lengths[slot], arg);
    } finally {
      s.lock.unlockRead(stamp);
    }
  }

  /**
   * The reader's answer for the cached slot of {@code key}, or null if not cached. Counts a hit or
   * a miss.
   */
  public <T> T get(long key, Reader<T> reader, long arg) {
    long h = mix(key);
    Stripe s = stripe(h);
    long stamp = s.lock.tryOptimisticRead();
    if (stamp != 0) {
      try {
        int slot = s.find(key, h);
        if (slot < 0) {
          if (s.lock.validate(stamp)) {
            misses.increment();
            return null;
          }
        } else {
          T v = reader.read(s.chunk(slot), s.offset(slot), s.lengths[slot], arg);
          if (s.lock.validate(stamp)) {
            s.ref[slot] = 1;
            hits.increment();
            return v;
          }
        }
      } catch (RuntimeException torn) {
        if (s.lock.validate(stamp)) {
          throw torn;
        }
      }
    }
    stamp = s.lock.readLock();
    try {
      int slot = s.find(key, h);
      if (slot < 0) {
        misses.increment();
        return null;
      }
      s.ref[slot] = 1;
      hits.increment();
      return reader.read(s.chunk(slot), s.offset(slot), s.lengths[slot], arg);
    } finally {
      s.lock.unlockRead(stamp);
    }
  }

  /** Whether {@code key} is cached now (no counters touched, no reference bit set). */
  public boolean contains(long key) {
    long h = mix(key);
    Stripe s = stripe(h);
    long stamp = s.lock.readLock();
    try {
      return s.find(key, h) >= 0;
    } finally {
      s.lock.unlockRead(stamp);
    }
  }

  /**
   * Offers {@code length} bytes for {@code key} (after a miss). Stored if the stripe has a free
   * slot or the admission filter saw this key miss before; then {@code writer} fills the slot under
   * the stripe's write lock. Returns whether it was stored (or already was).
   */
  public boolean put(long key, int length, Writer writer) {
    if (length < 0 || length > slotSize) {
      throw new IllegalArgumentException(
          "length " + length + " does not fit a slot of " + slotSize + " bytes");
    }
    long h = mix(key);
    Stripe s = stripe(h);
    long stamp = s.lock.writeLock();
    try {
      if (s.find(key, h) >= 0) {
        return true;
      }
      int slot;
      if (s.used < s.slots) {
        slot = s.used++;
      } else {
        if (!s.admit(key, h)) {
          rejections.increment();
          return false;
        }
        slot = s.evictOne();
        evictions.increment();
      }
      writer.write(s.chunkForFill(slot), s.offset(slot));
      s.insert(slot, key, h, length);
      return true;
    } finally {
      s.lock.unlockWrite(stamp);
    }
  }

  /**
   * {@link #put} of {@code length} bytes of {@code src} from {@code srcOffset} (absolute; src
   * unchanged).
   */
  public boolean put(long key, ByteBuffer src, int srcOffset, int length) {
    return put(key, length, (slab, off) -> slab.put(off, src, srcOffset, length));
  }

  /** Drops {@code key} if cached. */
  public void invalidate(long key) {
    long h = mix(key);
    Stripe s = stripe(h);
    long stamp = s.lock.writeLock();
    try {
      int pos = s.position(key, h);
      if (pos >= 0) {
        int slot = s.table[pos] - 1;
        s.removeAt(pos);
        s.free(slot);
      }
    } finally {
      s.lock.unlockWrite(stamp);
    }
  }

  /** Drops every entry (counters stay). */
  public void clear() {
    for (Stripe s : stripes) {
      long stamp = s.lock.writeLock();
      try {
        s.clear();
      } finally {
        s.lock.unlockWrite(stamp);
      }
    }
  }

  /**
   * One lock's share: {@code slots} slots in one direct buffer. Slots {@code [0, used)} are
   * occupied (a freed slot is refilled from the end: the last occupied one moves into it).
   */
  private static final class Stripe {
    final StampedLock lock = new StampedLock();

    /**
     * Slot memory in chunks of {@link #chunkSlots} slots, allocated on first use (RSS follows use).
     */
    final ByteBuffer[] chunks;

    final int chunkSlots;
    final int chunkShift;
    final ByteOrder order;
    final int slots;
    final int slotSize;

    /** Open addressing, linear probing: slot + 1, or 0 for an empty bucket. */
    final int[] table;

    final int mask;
    final long[] keys;
    final int[] lengths;
    final byte[] ref;

    /**
     * Admission filter: one remembered key per bucket, direct-mapped; 0 marks "none" unless
     * ghostSet.
     */
    final long[] ghost;

    final boolean[] ghostSet;
    final int ghostMask;
    int used;
    int hand;

    Stripe(int slots, int slotSize, ByteOrder order) {
      this.slots = slots;
      this.slotSize = slotSize;
      this.order = order;
      // A power of two, so a slot's chunk and offset are a shift and a mask.
      this.chunkSlots = Integer.highestOneBit(Math.max(1, Math.min(slots, CHUNK_BYTES / slotSize)));
      this.chunkShift = Integer.numberOfTrailingZeros(chunkSlots);
      this.chunks = new ByteBuffer[(slots + chunkSlots - 1) / chunkSlots];
      int buckets = Integer.highestOneBit(Math.max(2, slots) * 2 - 1) << 1;
      this.table = new int[buckets];
      this.mask = buckets - 1;
      this.keys = new long[slots];
      this.lengths = new int[slots];
      this.ref = new byte[slots];
      int g = Integer.highestOneBit(Math.max(1, slots));
      this.ghost = new long[g];
      this.ghostSet = new boolean[g];
      this.ghostMask = g - 1;
    }

    /**
     * The chunk holding slot {@code s}. A reader racing the fill of a new chunk may see null here
     * and throw; the cache then validates its stamp, fails, and retries under the read lock.
     */
    ByteBuffer chunk(int s) {
      return chunks[s >>> chunkShift];
    }

    int offset(int s) {
      return (s & (chunkSlots - 1)) * slotSize;
    }

    /**
     * The chunk of slot {@code s}, allocated if this is its first slot to be filled. Caller holds
     * the write lock.
     */
    ByteBuffer chunkForFill(int s) {
      int c = s >>> chunkShift;
      if (chunks[c] == null) {
        int n = Math.min(chunkSlots, slots - c * chunkSlots);
        chunks[c] = ByteBuffer.allocateDirect(n * slotSize).order(order);
      }
      return chunks[c];
    }

    /**
     * The slot holding {@code key}, or -1. Safe to call racing a writer (bounded; may answer
     * wrongly).
     */
    int find(long key, long h) {
      int i = (int) h & mask;
      for (int n = 0; n <= mask; n++) {
        int s = table[i] - 1;
        if (s < 0) {
          return -1;
        }
        if (s < slots && keys[s] == key) {
          return s;
        }
        i = (i + 1) & mask;
      }
      return -1;
    }

    /** The bucket holding {@code key}, or -1. Caller holds a lock. */
    int position(long key, long h) {
      int i = (int) h & mask;
      while (true) {
        int s = table[i] - 1;
        if (s < 0) {
          return -1;
        }
        if (keys[s] == key) {
          return i;
        }
        i = (i + 1) & mask;
      }
    }

    void insert(int slot, long key, long h, int length) {
      keys[slot] = key;
      lengths[slot] = length;
      ref[slot] = 0;
      int i = (int) h & mask;
      while (table[i] != 0) {
        i = (i + 1) & mask;
      }
      table[i] = slot + 1;
    }

    /** Backward-shift deletion keeps every probe chain unbroken. */
    void removeAt(int pos) {
      int hole = pos;
      int j = pos;
      while (true) {
        j = (j + 1) & mask;
        int s = table[j];
        if (s == 0) {
          break;
        }
        int home = (int) mix(keys[s - 1]) & mask;
        // The entry at j may move into the hole unless its home lies cyclically in (hole, j].
        boolean stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!stays) {
          table[hole] = s;
          hole = j;
        }
      }
      table[hole] = 0;
    }

    /** Whether a full stripe stores {@code key}: its second miss while remembered. */
    boolean admit(long key, long h) {
      int g = (int) (h >>> 20) & ghostMask;
      if (ghostSet[g] && ghost[g] == key) {
        ghostSet[g] = false;
        return true;
      }
      ghost[g] = key;
      ghostSet[g] = true;
      return false;
    }

    /**
     * CLOCK: frees the first slot from the hand without a reference bit (clearing bits on the way).
     */
    int evictOne() {
      while (true) {
        int s = hand;
        hand = hand + 1 == slots ? 0 : hand + 1;
        if (ref[s] != 0) {
          ref[s] = 0;
          continue;
        }
        removeAt(position(keys[s], mix(keys[s])));
        return s;
      }
    }

    /** Makes slot {@code s} (already out of the table) free: the last used slot moves into it. */
    void free(int s) {
      int last = --used;
      if (s != last) {
        long k = keys[last];
        int pos = position(k, mix(k));
        chunk(s).put(offset(s), chunk(last), offset(last), lengths[last]);
        keys[s] = k;
        lengths[s] = lengths[last];
        ref[s] = ref[last];
        table[pos] = s + 1;
      }
      if (hand >= used) {
        hand = 0;
      }
    }

    void clear() {
      java.util.Arrays.fill(table, 0);
      java.util.Arrays.fill(ref, (byte) 0);
      java.util.Arrays.fill(ghostSet, false);
      used = 0;
      hand = 0;
    }
  }
}
