package io.docstore.index;

import io.docstore.index.engine.IndexCounters;
import io.docstore.index.engine.IndexEngine;
import java.io.IOException;

/**
 * A point-in-time snapshot of an index's metric hooks, as plain values the service exports with
 * Micrometer. Counters are cumulative since open.
 */
public final class IndexStats {

  private final long puts;
  private final long deletes;
  private final long gets;
  private final long[] probesPerGet;
  private final long pagesRead;
  private final long bloomNo;
  private final long bloomMaybe;
  private final long bloomNotResident;
  private final long bloomResidentBytes;
  private final long bloomBudgetBytes;
  private final long bloomCorruptPages;
  private final long flushes;
  private final long compactions;
  private final long tableEntriesWritten;
  private final long tableBytesWritten;
  private final long compactionEntriesWritten;
  private final long compactionBytesWritten;
  private final long backgroundFailures;
  private final long walFsyncs;
  private final long walFsyncNanosTotal;
  private final long walFsyncNanosMax;
  private final long walBytesDropped;
  private final long walBytesWritten;
  private final long indexCount;
  private final long frozenTables;
  private final long memTableEntries;
  private final int backgroundWork;
  private final long pageCacheHits;
  private final long pageCacheMisses;
  private final long pageCacheEvictions;
  private final long pageCacheBytes;
  private final long pageCacheCapacityBytes;
  private final long pageReadsMappedCold;

  private IndexStats(IndexEngine e) {
    IndexCounters c = e.counters();
    puts = c.puts.sum();
    deletes = c.deletes.sum();
    probesPerGet = new long[IndexCounters.PROBE_BUCKETS];
    long total = 0;
    for (int i = 0; i < probesPerGet.length; i++) {
      probesPerGet[i] = c.probesPerGet[i].sum();
      total += probesPerGet[i];
    }
    gets = total; // every get counts in exactly one bucket
    pagesRead = c.pagesRead.sum();
    bloomNo = c.bloomNo.sum();
    bloomMaybe = c.bloomMaybe.sum();
    bloomNotResident = c.bloomNotResident.sum();
    bloomResidentBytes = e.pager().residentBytes();
    bloomBudgetBytes = e.pager().budgetBytes();
    bloomCorruptPages = e.pager().corruptPages();
    flushes = c.flushes.get();
    compactions = c.compactions.get();
    tableEntriesWritten = c.tableEntriesWritten.get();
    tableBytesWritten = c.tableBytesWritten.get();
    compactionEntriesWritten = c.compactionEntriesWritten.get();
    compactionBytesWritten = c.compactionBytesWritten.get();
    backgroundFailures = c.backgroundFailures.get();
    walFsyncs = c.walFsyncs.get();
    walFsyncNanosTotal = c.walFsyncNanos.get();
    walFsyncNanosMax = c.walFsyncMaxNanos.get();
    walBytesDropped = c.walBytesDropped.get();
    walBytesWritten = c.walBytesWritten.get();
    long[] shape;
    try {
      shape = e.shape();
    } catch (IOException closed) {
      shape = new long[4];
    }
    indexCount = shape[0];
    frozenTables = shape[1];
    memTableEntries = shape[2] + shape[3];
    backgroundWork = c.backgroundWork.get();
    io.docstore.io.cache.SlotCache pc = e.pageCache();
    pageCacheHits = pc == null ? 0 : pc.hits();
    pageCacheMisses = pc == null ? 0 : pc.misses();
    pageCacheEvictions = pc == null ? 0 : pc.evictions();
    pageCacheBytes = pc == null ? 0 : pc.bytesUsed();
    pageCacheCapacityBytes = pc == null ? 0 : pc.capacityBytes();
    pageReadsMappedCold = e.pageReadsMappedCold();
  }

  static IndexStats of(IndexEngine e) {
    return new IndexStats(e);
  }

  public long puts() {
    return puts;
  }

  public long deletes() {
    return deletes;
  }

  public long gets() {
    return gets;
  }

  /**
   * Histogram of on-disk indexes whose page was read per get: bucket i = i pages, the last bucket =
   * that many or more.
   */
  public long[] probesPerGet() {
    return probesPerGet.clone();
  }

  /** Index pages probed by gets (from the page cache, the mapping or one positional read each). */
  public long pagesRead() {
    return pagesRead;
  }

  /**
   * Page reads through a table's mapping that waited for the disk. Each sends lookups to the page
   * cache for a while; while mapped reads are warm, lookups read pages in place and skip the cache.
   */
  public long pageReadsMappedCold() {
    return pageReadsMappedCold;
  }

  /** Page probes answered by the index page cache (no read). */
  public long pageCacheHits() {
    return pageCacheHits;
  }

  /**
   * Page probes the index page cache did not hold (read from the file; 0 when the cache is off).
   */
  public long pageCacheMisses() {
    return pageCacheMisses;
  }

  public long pageCacheEvictions() {
    return pageCacheEvictions;
  }

  /** Bytes of slots holding a page now. */
  public long pageCacheBytes() {
    return pageCacheBytes;
  }

  /** The page cache's size (0: off). */
  public long pageCacheCapacityBytes() {
    return pageCacheCapacityBytes;
  }

  public long bloomNo() {
    return bloomNo;
  }

  public long bloomMaybe() {
    return bloomMaybe;
  }

  /** Bloom queries that hit a page not resident in memory (answered "maybe"). */
  public long bloomNotResident() {
    return bloomNotResident;
  }

  public long bloomResidentBytes() {
    return bloomResidentBytes;
  }

  public long bloomBudgetBytes() {
    return bloomBudgetBytes;
  }

  /** Bloom pages that failed their checksum when loaded (they answer "maybe" for good). */
  public long bloomCorruptPages() {
    return bloomCorruptPages;
  }

  public long flushes() {
    return flushes;
  }

  /** Flushes that merged at least one on-disk index. */
  public long compactions() {
    return compactions;
  }

  /**
   * Entries written to on-disk indexes by flushes and merges (write amplification = this / puts).
   */
  public long tableEntriesWritten() {
    return tableEntriesWritten;
  }

  /** Bytes of index and bloom files written. */
  public long tableBytesWritten() {
    return tableBytesWritten;
  }

  /** Entries written by flushes that merged on-disk indexes. */
  public long compactionEntriesWritten() {
    return compactionEntriesWritten;
  }

  public long compactionBytesWritten() {
    return compactionBytesWritten;
  }

  public long backgroundFailures() {
    return backgroundFailures;
  }

  public long walFsyncs() {
    return walFsyncs;
  }

  public long walFsyncNanosTotal() {
    return walFsyncNanosTotal;
  }

  public long walFsyncNanosMax() {
    return walFsyncNanosMax;
  }

  /** Bytes of torn WAL tails dropped by recovery at open. */
  public long walBytesDropped() {
    return walBytesDropped;
  }

  /** Bytes of WAL files completed (rotated) since open. */
  public long walBytesWritten() {
    return walBytesWritten;
  }

  public long indexCount() {
    return indexCount;
  }

  public long frozenTables() {
    return frozenTables;
  }

  public long memTableEntries() {
    return memTableEntries;
  }

  /** True while a memory table is being written to disk alone (no merge). */
  public boolean flushRunning() {
    return backgroundWork == IndexCounters.FLUSHING;
  }

  /** True while a memory table is being merged with on-disk indexes (a compaction). */
  public boolean compactionRunning() {
    return backgroundWork == IndexCounters.COMPACTING;
  }

  @Override
  public String toString() {
    return "IndexStats{puts="
        + puts
        + ", deletes="
        + deletes
        + ", gets="
        + gets
        + ", pagesRead="
        + pagesRead
        + ", bloomNo="
        + bloomNo
        + ", bloomMaybe="
        + bloomMaybe
        + ", bloomNotResident="
        + bloomNotResident
        + ", bloomResidentBytes="
        + bloomResidentBytes
        + ", flushes="
        + flushes
        + ", compactions="
        + compactions
        + ", tableEntriesWritten="
        + tableEntriesWritten
        + ", tableBytesWritten="
        + tableBytesWritten
        + ", indexCount="
        + indexCount
        + ", walBytesDropped="
        + walBytesDropped
        + "}";
  }
}
