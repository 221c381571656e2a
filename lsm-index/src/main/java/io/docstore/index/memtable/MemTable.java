package io.docstore.index.memtable;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * The in-memory table: an open-addressing hash table (linear probing) from id to value, sized from
 * a byte budget; the index freezes it when {@link #isFull}. A value of -2 is a tombstone.
 *
 * <p>The slot arrays start small and double as entries arrive, up to the budget's size: an empty or
 * small table costs little memory and a lookup into it stays in the CPU's caches (a read-only
 * store, after a bulk load, probes it on every lookup). Doubling copies every entry, so a table
 * filled to its budget was copied about once over in all.
 *
 * <p>Thread-safety: one writer ({@link #put}) and any number of concurrent readers ({@link #get}),
 * without locks. Keys are stored as {@code ~id} (never 0, so 0 marks an empty slot). The writer
 * stores the value, then publishes the key with release semantics; a reader loads the key with
 * acquire semantics before the value, so it never sees a key without its value. Slots are never
 * removed, so a probe sequence a reader follows never loses an entry. A larger pair of arrays is
 * filled completely before it is published (a volatile write); a reader that still probes the old
 * pair sees every entry written before the switch, and the writer no longer changes it.
 *
 * <p>Once frozen (no more puts) the table is immutable; {@link #sorted} builds the id-ordered view
 * a flush or scan iterates, once.
 */
public final class MemTable {

  /** Returned by {@link #get} when the id is not in this table. */
  public static final long MISSING = -1L;

  private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
  private static final double LOAD_FACTOR = 0.6;
  private static final int MIN_SLOTS = 64;

  /**
   * Entries whose slots {@link #putAll} loads before inserting them: enough misses in flight, all
   * still cached.
   */
  private static final int TOUCH_AHEAD = 32;

  /**
   * One generation of slots; replaced, never changed after, when the table doubles. Slot {@code i}
   * is {@code kv[2i]} (the key: {@code ~id}, 0 when empty) and {@code kv[2i+1]} (its value), side
   * by side, so an insert or a lookup touches one cache line, not one in a key array and another in
   * a value array.
   */
  private static final class Slots {
    final long[] kv;
    final int mask;

    Slots(int n) {
      kv = new long[2 * n];
      mask = n - 1;
    }

    int slots() {
      return mask + 1;
    }
  }

  private volatile Slots slots;

  /** The size the arrays may double to: the budget's, or more to hold a recovery replay. */
  private final int maxSlots;

  private final int maxEntries;
  private final long walNumber;
  private volatile int count;

  /** Where {@link #putAll} leaves the sum of the slots it touched, so the JIT keeps those loads. */
  @SuppressWarnings("unused")
  private long sink;

  private Sorted sorted;
  private boolean frozen;

  /** Sorted arrays of a frozen table's entries. */
  public record Sorted(long[] ids, long[] values) {}

  /**
   * @param budgetBytes bytes for the slots (16 each: a key and its value); the table is full at 60%
   *     load
   * @param minEntries entries it must be able to hold even if the budget is smaller (a recovery
   *     replay); such a table is full at once and frozen after the replay
   */
  public MemTable(long budgetBytes, int minEntries, long walNumber) {
    long budgetSlots = Math.max(MIN_SLOTS, Long.highestOneBit(Math.max(1, budgetBytes / 16)));
    long slots = budgetSlots;
    while (slots * LOAD_FACTOR < minEntries + 1) {
      slots <<= 1;
    }
    if (slots > (1 << 29)) {
      throw new IllegalArgumentException("memory table of " + slots + " slots is too large");
    }
    this.maxSlots = (int) slots;
    long first = MIN_SLOTS;
    while (first < slots && first * LOAD_FACTOR < minEntries + 1) {
      first <<= 1;
    }
    this.slots = new Slots((int) first);
    // Full at the budget's load even when recovery sized the arrays larger to hold a replay.
    this.maxEntries = (int) (budgetSlots * LOAD_FACTOR);
    this.walNumber = walNumber;
  }

  /** Entries this table accepts before it is full. */
  public int maxEntries() {
    return maxEntries;
  }

  public long walNumber() {
    return walNumber;
  }

  public int size() {
    return count;
  }

  /** Bytes of heap the slot arrays take now. */
  public long bytes() {
    return 8L * slots.kv.length;
  }

  public boolean isFull() {
    return count >= maxEntries;
  }

  /** True if {@code n} more new ids still fit. */
  public boolean hasRoomFor(int n) {
    return count + n <= maxEntries;
  }

  /**
   * True if {@code n} more new ids still fit in the slot arrays (at most 90% load), past {@link
   * #maxEntries} if need be: a batch kept in one table for atomicity may overshoot the budget,
   * never the arrays (a full open-addressing table would make {@link #put} spin).
   */
  public boolean canHold(int n) {
    return count + (long) n <= maxSlots * 9L / 10;
  }

  /**
   * Doubles the arrays until {@code entries} fit at the load factor, or they reach {@link
   * #maxSlots} (past that load a table fills up to 90%, see {@link #canHold}). Writer only.
   */
  private Slots ensureRoom(long entries) {
    Slots s = slots;
    if (entries <= s.slots() * LOAD_FACTOR || s.slots() >= maxSlots) {
      return s;
    }
    int n = s.slots();
    while (n < maxSlots && entries > n * LOAD_FACTOR) {
      n <<= 1;
    }
    Slots bigger = new Slots(n);
    long[] from = s.kv;
    long[] to = bigger.kv;
    for (int i = 0; i < from.length; i += 2) {
      long k = from[i];
      if (k != 0) {
        int j = slot(~k) & bigger.mask;
        while (to[2 * j] != 0) {
          j = (j + 1) & bigger.mask;
        }
        to[2 * j] = k;
        to[2 * j + 1] = from[i + 1];
      }
    }
    slots = bigger;
    return bigger;
  }

  static int slot(long id) {
    long h = id * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 29) ^ (h >>> 41));
  }

  /** Inserts or overwrites. Single writer only; the caller keeps {@code size() < capacity}. */
  public void put(long id, long value) {
    count = count + insert(ensureRoom(count + 1L), id, value);
  }

  /**
   * {@link #put} of {@code ids[from..from+n)} with {@code values} at the same positions, in order.
   * Each slot of a table this size is a cache (and TLB) miss; one {@code put} after another waits
   * for them one at a time. Here every group of {@value #TOUCH_AHEAD} entries first loads its slots
   * with independent loads, which the CPU overlaps, then inserts into lines already in cache.
   * Single writer only, as {@link #put}.
   */
  public void putAll(long[] ids, long[] values, int from, int n) {
    int end = from + n;
    long touched = 0;
    int added = 0;
    Slots t = ensureRoom((long) count + n);
    for (int base = from; base < end; base += TOUCH_AHEAD) {
      int stop = Math.min(end, base + TOUCH_AHEAD);
      for (int i = base; i < stop; i++) {
        touched += t.kv[2 * (slot(ids[i]) & t.mask)];
      }
      for (int i = base; i < stop; i++) {
        added += insert(t, ids[i], values[i]);
      }
    }
    sink = touched;
    count = count + added;
  }

  /**
   * Stores the entry; 1 if the id is new to the table, 0 if it overwrote. Does not touch {@link
   * #count}.
   */
  private static int insert(Slots t, long id, long value) {
    long key = ~id;
    long[] kv = t.kv;
    int i = slot(id) & t.mask;
    while (true) {
      long k = kv[2 * i];
      if (k == key) {
        LONGS.setRelease(kv, 2 * i + 1, value);
        return 0;
      }
      if (k == 0) {
        kv[2 * i + 1] = value;
        LONGS.setRelease(kv, 2 * i, key);
        return 1;
      }
      i = (i + 1) & t.mask;
    }
  }

  /**
   * The value (or -2 tombstone) for {@code id}, or {@link #MISSING}. Lock-free, allocation-free.
   */
  public long get(long id) {
    Slots t = slots;
    long[] kv = t.kv;
    long key = ~id;
    int i = slot(id) & t.mask;
    while (true) {
      long k = (long) LONGS.getAcquire(kv, 2 * i);
      if (k == key) {
        return (long) LONGS.getAcquire(kv, 2 * i + 1);
      }
      if (k == 0) {
        return MISSING;
      }
      i = (i + 1) & t.mask;
    }
  }

  /**
   * The entries in id order. For a frozen table the result is built once and cached; for the active
   * table the caller must hold the writer lock (it is a point-in-time copy).
   */
  public synchronized Sorted sorted() {
    if (sorted != null) {
      return sorted;
    }
    long[] ids = new long[count];
    long[] kv = slots.kv;
    int n = 0;
    for (int i = 0; i < kv.length; i += 2) {
      long k = (long) LONGS.getAcquire(kv, i);
      if (k != 0 && n < ids.length) {
        ids[n++] = ~k;
      }
    }
    ids = n == ids.length ? ids : Arrays.copyOf(ids, n);
    Arrays.sort(ids);
    long[] vals = new long[n];
    for (int i = 0; i < n; i++) {
      vals[i] = get(ids[i]);
    }
    Sorted s = new Sorted(ids, vals);
    if (frozen) {
      sorted = s;
    }
    return s;
  }

  /** No more puts will come (the writer froze it): from now on the sorted view is cached. */
  public synchronized void markFrozen() {
    frozen = true;
  }
}
