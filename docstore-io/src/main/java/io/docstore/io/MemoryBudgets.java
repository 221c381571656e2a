package io.docstore.io;

/**
 * How much of a box's memory docstore's caches take by default: the one table behind the index's
 * library defaults ({@code IndexOptions.builder()}) and the service's {@code auto} sizes ({@code
 * config/docstore.conf}). It owns the fractions, the caps and the order in which the off-heap
 * caches share the JVM's direct memory; it reads nothing itself ({@link MemoryLimit} does).
 *
 * <p>The rule ({@link #of(MemoryLimit, MemoryBudgets, long)}), with L the box's limit:
 *
 * <ul>
 *   <li>index page cache L/8, at most 256 MiB; document cache L/8, at most 256 MiB;
 *   <li>bloom memory L/32, at most 64 MiB; memory table L/32, at most 64 MiB and at most an eighth
 *       of the heap (it lives there, up to three at once: one filling, two waiting for their
 *       flush);
 *   <li>the three off-heap ones together within 3/4 of the JVM's direct memory limit ({@link
 *       MemoryLimit#cacheShare}), less what the caller already gave away, taken in the order bloom,
 *       page cache, document cache (a lookup probes the bloom filter of every table it may hit, and
 *       the page cache is what keeps a cold lookup near one disk read);
 *   <li>every size rounded down to whole MiB (under 1 MiB: 0, off).
 * </ul>
 *
 * <p>Why these fractions. The caps are the sizes these caches had before they followed the box, so
 * a box of 2 GiB or more (with the JVM's default direct limit, 4 GiB or more) gets exactly those.
 * On a small box the OS page cache is what serves the data files, and it gets only what is left
 * after the JVM (about 100 MB of code, metadata, stacks and GC structures before the heap holds
 * anything, all charged to a memory cgroup like the page cache is) and these budgets. In a 512 MiB
 * cgroup the side-by-side bench gives docstore 128 MiB split bloom : index pages : blocks 1:6:1
 * (L/32, 3L/16, L/32) plus a 64 MiB memory table, 3L/8 in all, and reaches 0.65x LMDB's cold reads
 * there; an outside harness with the library's fixed defaults of the time reached 0.36x. The rule
 * above takes at most 5L/16 for the index and the document cache together where direct memory
 * allows (the index L/8 less than the bench's split, the document cache, which the bench does not
 * have, L/8), and 7L/32 under the JVM's default limits in a container (heap and direct memory L/4
 * each), so at least half of the box stays for the JVM and the page cache (docs/decisions.md,
 * "Memory budgets follow the box").
 *
 * @param pageCacheBytes the index's page cache (off heap)
 * @param bloomMemoryBytes the index's resident bloom filter pages (off heap)
 * @param memTableBytes one index memory table (on the heap)
 * @param documentCacheBytes the service's in-process document cache (off heap)
 */
public record MemoryBudgets(
    long pageCacheBytes, long bloomMemoryBytes, long memTableBytes, long documentCacheBytes) {

  /**
   * A budget left to the rule, in the {@code given} argument of {@link #of(MemoryLimit,
   * MemoryBudgets, long)}.
   */
  public static final long AUTO = -1;

  private static final long MIB = 1L << 20;
  private static final long PAGE_CACHE_CAP = 256 * MIB;
  private static final long BLOOM_CAP = 64 * MIB;
  private static final long MEMTABLE_CAP = 64 * MIB;
  private static final long DOCUMENT_CACHE_CAP = 256 * MIB;
  private static final MemoryBudgets ALL_AUTO = new MemoryBudgets(AUTO, AUTO, AUTO, AUTO);

  public MemoryBudgets {
    if (pageCacheBytes < AUTO
        || bloomMemoryBytes < AUTO
        || memTableBytes < AUTO
        || documentCacheBytes < AUTO) {
      throw new IllegalArgumentException("a budget is a size >= 0 or AUTO");
    }
  }

  /** Every budget by the rule, for this process's box and JVM. */
  public static MemoryBudgets forThisProcess() {
    return of(MemoryLimit.detect(), ALL_AUTO, 0);
  }

  /** Every budget by the rule, for {@code limit}. */
  public static MemoryBudgets of(MemoryLimit limit) {
    return of(limit, ALL_AUTO, 0);
  }

  /**
   * The budgets for {@code limit}: each one {@code given} as a size is kept, each given as {@link
   * #AUTO} follows the rule within the direct memory the sizes given, and {@code otherOffHeapBytes}
   * (other caches off the heap), leave.
   */
  public static MemoryBudgets of(MemoryLimit limit, MemoryBudgets given, long otherOffHeapBytes) {
    long box = limit.bytes();
    long room =
        MemoryLimit.cacheShare(limit.maxDirectBytes())
            - otherOffHeapBytes
            - Math.max(0, given.bloomMemoryBytes)
            - Math.max(0, given.pageCacheBytes)
            - Math.max(0, given.documentCacheBytes);
    room = Math.max(0, room);
    long bloom = given.bloomMemoryBytes;
    if (bloom == AUTO) {
      bloom = mib(Math.min(room, Math.min(BLOOM_CAP, box / 32)));
      room -= bloom;
    }
    long pages = given.pageCacheBytes;
    if (pages == AUTO) {
      pages = mib(Math.min(room, Math.min(PAGE_CACHE_CAP, box / 8)));
      room -= pages;
    }
    long documents = given.documentCacheBytes;
    if (documents == AUTO) {
      documents = mib(Math.min(room, Math.min(DOCUMENT_CACHE_CAP, box / 8)));
    }
    long memTable = given.memTableBytes;
    if (memTable == AUTO) {
      memTable =
          Math.max(MIB, mib(Math.min(MEMTABLE_CAP, Math.min(box / 32, limit.maxHeapBytes() / 8))));
    }
    return new MemoryBudgets(pages, bloom, memTable, documents);
  }

  private static long mib(long bytes) {
    return bytes / MIB * MIB;
  }

  @Override
  public String toString() {
    return "index page cache "
        + show(pageCacheBytes)
        + ", bloom "
        + show(bloomMemoryBytes)
        + ", memtable "
        + show(memTableBytes)
        + ", document cache "
        + show(documentCacheBytes);
  }

  private static String show(long bytes) {
    return bytes == AUTO ? "auto" : bytes == 0 ? "0" : MemoryLimit.size(bytes);
  }
}
