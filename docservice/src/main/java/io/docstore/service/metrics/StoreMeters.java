package io.docstore.service.metrics;

import com.google.common.base.Suppliers;
import io.docstore.index.IndexStats;
import io.docstore.queue.QueueStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * Exports the queue's and the index's own counters as meters: append and compression volume,
 * fsyncs, block reads and the block cache; index runs, the page cache, flushes and compactions with
 * the bytes they wrote, bloom answers (the usefulness policy at work), WAL fsyncs and what a flush
 * or compaction is doing now. One scrape reads each stats snapshot at most once a second, however
 * many meters it has.
 */
public final class StoreMeters {

  private static final Duration SNAPSHOT_AGE = Duration.ofSeconds(1);

  private StoreMeters() {}

  /**
   * Binds the meters of one store's queue and index to {@code r}. Meters hold {@code owner} weakly
   * (as Micrometer does): they read NaN once the store that owns the queue and index is gone.
   */
  public static void bind(
      MeterRegistry r,
      Object owner,
      Supplier<QueueStats> queueStats,
      Supplier<IndexStats> indexStats) {
    Supplier<QueueStats> q = Suppliers.memoizeWithExpiration(queueStats::get, SNAPSHOT_AGE);
    Supplier<IndexStats> i = Suppliers.memoizeWithExpiration(indexStats::get, SNAPSHOT_AGE);
    counter(r, owner, "docstore.queue.appends", "records appended", q, QueueStats::appends);
    counter(
        r,
        owner,
        "docstore.queue.body.bytes",
        "document body bytes appended",
        q,
        QueueStats::bodyBytes);
    counter(
        r,
        owner,
        "docstore.queue.raw.bytes",
        "block bytes before compression",
        q,
        QueueStats::rawBytes);
    counter(
        r,
        owner,
        "docstore.queue.stored.bytes",
        "block bytes written to segment files",
        q,
        QueueStats::storedBytes);
    counter(r, owner, "docstore.queue.blocks", "blocks written", q, QueueStats::blocks);
    counter(
        r,
        owner,
        "docstore.queue.segments.sealed",
        "segments sealed",
        q,
        QueueStats::segmentsSealed);
    counter(r, owner, "docstore.queue.fsyncs", "fsyncs of segment files", q, QueueStats::fsyncs);
    counter(
        r,
        owner,
        "docstore.queue.torn.tail.bytes",
        "bytes cut from a torn tail at open",
        q,
        QueueStats::tornTailBytesDropped);
    counter(
        r,
        owner,
        "docstore.queue.block.reads",
        "blocks read from segment files",
        q,
        QueueStats::blockReads);
    counter(
        r,
        owner,
        "docstore.queue.block.reads.mapped",
        "of the blocks read, those taken from a segment's mapping",
        q,
        QueueStats::blockReadsMapped);
    counter(
        r,
        owner,
        "docstore.queue.block.reads.mapped.cold",
        "mapped block reads that waited for the disk (each sends the next 1024 block reads to positional reads)",
        q,
        QueueStats::blockReadsMappedCold);
    counter(
        r,
        owner,
        "docstore.queue.block.cache.hits",
        "block reads answered by the decoded-block cache",
        q,
        QueueStats::blockCacheHits);
    counter(
        r,
        owner,
        "docstore.queue.block.cache.misses",
        "block reads the decoded-block cache did not hold",
        q,
        QueueStats::blockCacheMisses);
    counter(
        r,
        owner,
        "docstore.queue.block.cache.evictions",
        "blocks evicted from the decoded-block cache",
        q,
        QueueStats::blockCacheEvictions);
    gauge(
        r,
        owner,
        "docstore.queue.block.cache.bytes",
        "decoded-block cache slots in use (off heap)",
        q,
        QueueStats::blockCacheBytes);
    gauge(
        r,
        owner,
        "docstore.queue.block.cache.capacity.bytes",
        "decoded-block cache size (off heap; 0 = off)",
        q,
        QueueStats::blockCacheCapacityBytes);
    counter(r, owner, "docstore.index.gets", "index lookups", i, IndexStats::gets);
    counter(
        r,
        owner,
        "docstore.index.pages.read",
        "index file pages read by lookups",
        i,
        IndexStats::pagesRead);
    counter(
        r,
        owner,
        "docstore.index.page.reads.mapped.cold",
        "index page reads through a mapping that waited for"
            + " the disk (lookups then use the page cache for a while)",
        i,
        IndexStats::pageReadsMappedCold);
    counter(
        r,
        owner,
        "docstore.index.page.cache.hits",
        "index page probes answered by the page cache (no read)",
        i,
        IndexStats::pageCacheHits);
    counter(
        r,
        owner,
        "docstore.index.page.cache.misses",
        "index page probes read from the file",
        i,
        IndexStats::pageCacheMisses);
    counter(
        r,
        owner,
        "docstore.index.page.cache.evictions",
        "pages evicted from the index page cache",
        i,
        IndexStats::pageCacheEvictions);
    gauge(
        r,
        owner,
        "docstore.index.page.cache.bytes",
        "index page cache slots in use (off heap)",
        i,
        IndexStats::pageCacheBytes);
    gauge(
        r,
        owner,
        "docstore.index.page.cache.capacity.bytes",
        "index page cache size (off heap; 0 = off)",
        i,
        IndexStats::pageCacheCapacityBytes);
    bloom(
        r,
        owner,
        "no",
        "resident bloom page answered no: no index page read",
        i,
        IndexStats::bloomNo);
    bloom(r, owner, "maybe", "resident bloom page answered maybe", i, IndexStats::bloomMaybe);
    bloom(
        r,
        owner,
        "not_resident",
        "bloom page not resident: counted as maybe",
        i,
        IndexStats::bloomNotResident);
    counter(
        r,
        owner,
        "docstore.index.flushes",
        "memory tables written to disk",
        i,
        IndexStats::flushes);
    counter(
        r,
        owner,
        "docstore.index.compactions",
        "flushes that merged on-disk indexes",
        i,
        IndexStats::compactions);
    counter(
        r,
        owner,
        "docstore.index.table.bytes.written",
        "index and bloom bytes written by flushes and compactions",
        i,
        IndexStats::tableBytesWritten);
    counter(
        r,
        owner,
        "docstore.index.compaction.bytes.written",
        "index and bloom bytes written by compactions",
        i,
        IndexStats::compactionBytesWritten);
    counter(
        r,
        owner,
        "docstore.index.wal.bytes.written",
        "WAL bytes written",
        i,
        IndexStats::walBytesWritten);
    counter(r, owner, "docstore.index.wal.fsyncs", "WAL fsyncs", i, IndexStats::walFsyncs);
    counter(
        r,
        owner,
        "docstore.index.wal.fsync.seconds",
        "time spent in WAL fsyncs",
        i,
        s -> s.walFsyncNanosTotal() / 1e9);
    counter(
        r,
        owner,
        "docstore.index.background.failures",
        "failed flushes or compactions (retried)",
        i,
        IndexStats::backgroundFailures);
    gauge(
        r,
        owner,
        "docstore.index.runs",
        "on-disk indexes (sorted runs) a lookup may search",
        i,
        IndexStats::indexCount);
    gauge(
        r,
        owner,
        "docstore.index.frozen.tables",
        "memory tables waiting to be flushed",
        i,
        IndexStats::frozenTables);
    gauge(
        r,
        owner,
        "docstore.index.memtable.entries",
        "entries in memory tables",
        i,
        IndexStats::memTableEntries);
    gauge(
        r,
        owner,
        "docstore.index.bloom.resident.bytes",
        "bloom pages kept in memory",
        i,
        IndexStats::bloomResidentBytes);
    gauge(
        r,
        owner,
        "docstore.index.bloom.budget.bytes",
        "memory budget for bloom pages",
        i,
        IndexStats::bloomBudgetBytes);
    gauge(
        r,
        owner,
        "docstore.index.background.work",
        "0 idle, 1 flushing, 2 compacting",
        i,
        s -> s.compactionRunning() ? 2 : s.flushRunning() ? 1 : 0);
  }

  private static <S> void counter(
      MeterRegistry r,
      Object owner,
      String name,
      String what,
      Supplier<S> stats,
      ToDoubleFunction<S> f) {
    FunctionCounter.builder(name, owner, o -> f.applyAsDouble(stats.get()))
        .description(what)
        .register(r);
  }

  private static void bloom(
      MeterRegistry r,
      Object owner,
      String answer,
      String what,
      Supplier<IndexStats> stats,
      ToDoubleFunction<IndexStats> f) {
    FunctionCounter.builder(
            "docstore.index.bloom.answers", owner, o -> f.applyAsDouble(stats.get()))
        .tag("answer", answer)
        .description(what)
        .register(r);
  }

  private static <S> void gauge(
      MeterRegistry r,
      Object owner,
      String name,
      String what,
      Supplier<S> stats,
      ToDoubleFunction<S> f) {
    Gauge.builder(name, owner, o -> f.applyAsDouble(stats.get())).description(what).register(r);
  }
}
