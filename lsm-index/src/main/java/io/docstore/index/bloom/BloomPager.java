package io.docstore.index.bloom;

import io.docstore.io.Checksums;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one memory budget all bloom filters of an index share: a slab of off-heap 4 KiB slots, and
 * the policy that decides which filter pages occupy them (article Figures 13-14). A page that is
 * not resident answers "maybe", so memory pressure costs speed, never correctness.
 *
 * <p>{@link #rebalance} (run by a background task) decays each page's request count, learns from
 * its answers the probability it says "no", ranks pages by usefulness = heat x P(no), loads the
 * best missing pages and evicts the worst resident ones. Resident pages get a 25% bonus so two
 * near-equal pages do not swap back and forth. Only a resident page answers, so a page's answer
 * counts decay only in rounds in which it answered: an evicted page keeps the P(no) it showed, and
 * a hot page that rarely says "no" is not reloaded every time its old answers would have decayed.
 *
 * <p>Thread-safety: slots are reassigned under this object's lock. Readers probe without locks
 * using a per-slot stamp (a seqlock): the stamp is odd while a slot is rewritten, and a reader
 * whose stamp or owner tag changed during its probe answers "not resident" instead of trusting the
 * bits.
 */
public final class BloomPager implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(BloomPager.class);
  private static final VarHandle INTS = MethodHandles.arrayElementVarHandle(int[].class);
  private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
  private static final int CHUNK_SHIFT = 14;
  private static final double DECAY = 0.5;
  private static final double RESIDENT_BONUS = 1.25;

  private final BloomPolicy policy;
  private final int slots;
  private final ByteBuffer[] chunks;
  private final int[] stamps;
  private final long[] owners;
  private final int[] freeSlots;
  private int freeCount;
  private final List<BloomFilter> filters = new CopyOnWriteArrayList<>();
  private final AtomicLong tags = new AtomicLong();
  private final SplittableRandom random = new SplittableRandom(42);
  private final AtomicLong loads = new AtomicLong();
  private final AtomicLong evictions = new AtomicLong();
  private final AtomicLong corruptPages = new AtomicLong();

  public BloomPager(long budgetBytes, BloomPolicy policy) {
    this.policy = policy;
    this.slots =
        (int) Math.min(Integer.MAX_VALUE / 2, Math.max(0, budgetBytes / BloomFormat.PAGE_SIZE));
    int perChunk = 1 << CHUNK_SHIFT;
    int n = (slots + perChunk - 1) / perChunk;
    this.chunks = new ByteBuffer[n];
    for (int i = 0; i < n; i++) {
      int inThis = Math.min(perChunk, slots - i * perChunk);
      // Page-aligned, so that each 64-byte block of a version-2 page is one cache line (a direct
      // buffer is only 8- or 16-byte aligned: unless it happened to be 64-byte aligned, every block
      // would straddle two lines).
      chunks[i] =
          ByteBuffer.allocateDirect(inThis * BloomFormat.PAGE_SIZE + BloomFormat.PAGE_SIZE - 1)
              .alignedSlice(BloomFormat.PAGE_SIZE)
              .limit(inThis * BloomFormat.PAGE_SIZE)
              .slice();
    }
    this.stamps = new int[slots];
    this.owners = new long[slots];
    Arrays.fill(owners, -1L);
    this.freeSlots = new int[slots];
    for (int i = 0; i < slots; i++) {
      freeSlots[i] = slots - 1 - i;
    }
    this.freeCount = slots;
  }

  /** How far slot {@code s} starts past a multiple of {@code unit} bytes in memory (0: aligned). */
  int slotMisalignment(int s, int unit) {
    return chunks[s >>> CHUNK_SHIFT].alignmentOffset(
        (s & ((1 << CHUNK_SHIFT) - 1)) * BloomFormat.PAGE_SIZE, unit);
  }

  long newTag() {
    return tags.incrementAndGet() << 32;
  }

  /**
   * Probes slot {@code s}, expected to hold page {@code tag}, for the key with second hash {@code
   * g} in a filter of format {@code version}: NO, MAYBE, or NOT_RESIDENT if the slot changed.
   */
  int probe(int s, long tag, long g, int probes, int version) {
    int stamp = (int) INTS.getAcquire(stamps, s);
    if ((stamp & 1) != 0 || (long) LONGS.getAcquire(owners, s) != tag) {
      return BloomFilter.NOT_RESIDENT;
    }
    ByteBuffer chunk = chunks[s >>> CHUNK_SHIFT];
    int base = (s & ((1 << CHUNK_SHIFT) - 1)) * BloomFormat.PAGE_SIZE;
    int result =
        (version == 1
                ? allSetInPage(chunk, base, g, probes)
                : allSetInBlock(chunk, base, g, probes))
            ? BloomFilter.MAYBE
            : BloomFilter.NO;
    VarHandle.loadLoadFence();
    if ((int) INTS.getAcquire(stamps, s) != stamp) {
      return BloomFilter.NOT_RESIDENT;
    }
    return result;
  }

  /** Version 1: whether all probes of {@code g} are set anywhere in the page at {@code base}. */
  private static boolean allSetInPage(ByteBuffer chunk, int base, long g, int probes) {
    for (int i = 0; i < probes; i++) {
      int b = Hashing.bit(g, i);
      if ((chunk.get(base + (b >>> 3)) & (1 << (b & 7))) == 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * Version 2: whether all probes of {@code g} are set in its 64-byte block of the page at {@code
   * base}.
   */
  private static boolean allSetInBlock(ByteBuffer chunk, int base, long g, int probes) {
    int block = base + Hashing.block(g) * BloomFormat.BLOCK_SIZE;
    long state = g;
    for (int i = 0; i < probes; i++) {
      state = Hashing.nextProbe(state);
      int b = Hashing.blockBit(state);
      if ((chunk.get(block + (b >>> 3)) & (1 << (b & 7))) == 0) {
        return false;
      }
    }
    return true;
  }

  synchronized void register(BloomFilter f) {
    filters.add(f);
    for (int p = 0; p < f.pageCount() && freeCount > 0; p++) {
      load(f, p);
    }
  }

  synchronized void unregister(BloomFilter f) {
    filters.remove(f);
    for (int p = 0; p < f.pageCount(); p++) {
      int s = f.slot(p);
      if (s >= 0) {
        evict(f, p, s);
      }
    }
  }

  private void evict(BloomFilter f, int p, int s) {
    f.setSlot(p, BloomFilter.SLOT_NONE);
    int st = stamps[s];
    INTS.setRelease(stamps, s, st + 1);
    LONGS.setRelease(owners, s, -1L);
    INTS.setRelease(stamps, s, st + 2);
    freeSlots[freeCount++] = s;
    evictions.incrementAndGet();
  }

  /**
   * Loads page {@code p} of {@code f} into a free slot; a page failing its checksum is never loaded
   * again.
   */
  private void load(BloomFilter f, int p) {
    int s = freeSlots[--freeCount];
    int st = stamps[s];
    INTS.setRelease(stamps, s, st + 1);
    VarHandle.storeStoreFence();
    LONGS.setRelease(owners, s, f.tag | p);
    ByteBuffer chunk = chunks[s >>> CHUNK_SHIFT];
    int base = (s & ((1 << CHUNK_SHIFT) - 1)) * BloomFormat.PAGE_SIZE;
    ByteBuffer slice = chunk.slice(base, BloomFormat.PAGE_SIZE);
    boolean ok;
    try {
      BloomFilter.readFully(f.channel(), slice, BloomFormat.pageOffset(p));
      int actual = Checksums.crc32c(chunk, base, BloomFormat.PAGE_SIZE);
      ok = actual == f.pageCrc(p);
      if (!ok) {
        corruptPages.incrementAndGet();
        f.setSlot(p, BloomFilter.SLOT_CORRUPT);
        LOG.error(
            "bloom page {} of {} at offset {} failed its checksum (expected {}, actual {}); it answers \"maybe\" from now on",
            p,
            f.path(),
            BloomFormat.pageOffset(p),
            String.format("%08x", f.pageCrc(p)),
            String.format("%08x", actual));
      }
    } catch (IOException e) {
      ok = false;
      LOG.warn("could not load bloom page {} of {}: {}", p, f.path(), e.toString());
    }
    if (ok) {
      INTS.setRelease(stamps, s, st + 2);
      f.setSlot(p, s);
      loads.incrementAndGet();
    } else {
      LONGS.setRelease(owners, s, -1L);
      INTS.setRelease(stamps, s, st + 2);
      freeSlots[freeCount++] = s;
    }
  }

  /** One round of the usefulness policy: decay, rank, evict the worst, load the best. */
  public synchronized void rebalance() {
    List<BloomFilter> fs = new ArrayList<>(filters);
    int total = 0;
    for (BloomFilter f : fs) {
      total += f.pageCount();
    }
    if (total > (1 << 20) || fs.size() > (1 << 11)) {
      rebalanceCoarse(fs);
      return;
    }
    long[] ranked = new long[total];
    int n = 0;
    for (int fi = 0; fi < fs.size(); fi++) {
      BloomFilter f = fs.get(fi);
      for (int p = 0; p < f.pageCount(); p++) {
        f.heat[p] = f.heat[p] * DECAY + f.requests[p];
        f.requests[p] = 0;
        // Only answers replace answers: a page that answered nothing this round (not resident)
        // keeps the P(no) it showed while it was, or its heat alone would soon bring it back.
        if (f.answered[p] > 0) {
          f.answeredDecayed[p] = f.answeredDecayed[p] * DECAY + f.answered[p];
          f.noesDecayed[p] = f.noesDecayed[p] * DECAY + f.noes[p];
          f.answered[p] = 0;
          f.noes[p] = 0;
        }
        int slot = f.slot(p);
        double u;
        if (slot == BloomFilter.SLOT_CORRUPT) {
          u = -1;
        } else if (policy == BloomPolicy.RANDOM) {
          u = random.nextDouble();
        } else {
          double pNo = (f.noesDecayed[p] + 1) / (f.answeredDecayed[p] + 2);
          u = f.heat[p] * pNo * (slot >= 0 ? RESIDENT_BONUS : 1.0);
        }
        // Usefulness as float bits (monotonic for non-negative floats) above a 20-bit page and
        // 11-bit filter index.
        long key = u < 0 ? 0 : ((long) Float.floatToIntBits((float) u) << 31);
        ranked[n++] = key | ((long) fi << 20) | p;
      }
    }
    Arrays.sort(ranked, 0, n);
    boolean[][] keep = new boolean[fs.size()][];
    for (int fi = 0; fi < fs.size(); fi++) {
      keep[fi] = new boolean[fs.get(fi).pageCount()];
    }
    for (int i = n - 1, kept = 0; i >= 0 && kept < slots; i--, kept++) {
      keep[(int) ((ranked[i] >>> 20) & 0x7FF)][(int) (ranked[i] & 0xFFFFF)] = true;
    }
    for (int fi = 0; fi < fs.size(); fi++) {
      BloomFilter f = fs.get(fi);
      for (int p = 0; p < f.pageCount(); p++) {
        int s = f.slot(p);
        if (s >= 0 && !keep[fi][p]) {
          evict(f, p, s);
        }
      }
    }
    for (int fi = 0; fi < fs.size(); fi++) {
      BloomFilter f = fs.get(fi);
      for (int p = 0; p < f.pageCount() && freeCount > 0; p++) {
        if (keep[fi][p] && f.slot(p) == BloomFilter.SLOT_NONE) {
          load(f, p);
        }
      }
    }
  }

  /** Beyond the packed ranking's range: only fill free slots (never reached at default sizes). */
  private void rebalanceCoarse(List<BloomFilter> fs) {
    for (BloomFilter f : fs) {
      for (int p = 0; p < f.pageCount() && freeCount > 0; p++) {
        if (f.slot(p) == BloomFilter.SLOT_NONE) {
          load(f, p);
        }
      }
    }
  }

  public synchronized long residentBytes() {
    return (long) (slots - freeCount) * BloomFormat.PAGE_SIZE;
  }

  public long budgetBytes() {
    return (long) slots * BloomFormat.PAGE_SIZE;
  }

  public long loads() {
    return loads.get();
  }

  public long evictions() {
    return evictions.get();
  }

  public long corruptPages() {
    return corruptPages.get();
  }

  @Override
  public void close() {
    // Direct buffers are freed by the GC once unreachable; nothing else to release.
    filters.clear();
  }
}
