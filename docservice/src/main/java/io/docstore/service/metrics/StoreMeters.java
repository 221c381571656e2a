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
 * fsyncs, block reads and cache hits; index runs, flushes and compactions with the bytes they wrote,
 * bloom answers (the usefulness policy at work), WAL fsyncs and what a flush or compaction is doing
 * now. One scrape reads each stats snapshot at most once a second, however many meters it has.
 */
public final class StoreMeters {

  private static final Duration SNAPSHOT_AGE = Duration.ofSeconds(1);

  private StoreMeters() {}

  /** Binds the meters of one store's queue and index to {@code r}. */
  public static void bind(MeterRegistry r, Supplier<QueueStats> queueStats, Supplier<IndexStats> indexStats) {
    Supplier<QueueStats> q = Suppliers.memoizeWithExpiration(queueStats::get, SNAPSHOT_AGE);
    Supplier<IndexStats> i = Suppliers.memoizeWithExpiration(indexStats::get, SNAPSHOT_AGE);
    counter(r, "docstore.queue.appends", "records appended", q, QueueStats::appends);
    counter(r, "docstore.queue.body.bytes", "document body bytes appended", q, QueueStats::bodyBytes);
    counter(r, "docstore.queue.raw.bytes", "block bytes before compression", q, QueueStats::rawBytes);
    counter(r, "docstore.queue.stored.bytes", "block bytes written to segment files", q, QueueStats::storedBytes);
    counter(r, "docstore.queue.blocks", "blocks written", q, QueueStats::blocks);
    counter(r, "docstore.queue.segments.sealed", "segments sealed", q, QueueStats::segmentsSealed);
    counter(r, "docstore.queue.fsyncs", "fsyncs of segment files", q, QueueStats::fsyncs);
    counter(r, "docstore.queue.torn.tail.bytes", "bytes cut from a torn tail at open", q, QueueStats::tornTailBytesDropped);
    counter(r, "docstore.queue.block.reads", "blocks read from segment files", q, QueueStats::blockReads);
    counter(r, "docstore.queue.block.cache.hits", "block reads answered by the decoded-block cache", q,
        QueueStats::blockCacheHits);
    counter(r, "docstore.index.gets", "index lookups", i, IndexStats::gets);
    counter(r, "docstore.index.pages.read", "index file pages read by lookups", i, IndexStats::pagesRead);
    bloom(r, "no", "resident bloom page answered no: no index page read", i, IndexStats::bloomNo);
    bloom(r, "maybe", "resident bloom page answered maybe", i, IndexStats::bloomMaybe);
    bloom(r, "not_resident", "bloom page not resident: counted as maybe", i, IndexStats::bloomNotResident);
    counter(r, "docstore.index.flushes", "memory tables written to disk", i, IndexStats::flushes);
    counter(r, "docstore.index.compactions", "flushes that merged on-disk indexes", i, IndexStats::compactions);
    counter(r, "docstore.index.table.bytes.written", "index and bloom bytes written by flushes and compactions", i,
        IndexStats::tableBytesWritten);
    counter(r, "docstore.index.compaction.bytes.written", "index and bloom bytes written by compactions", i,
        IndexStats::compactionBytesWritten);
    counter(r, "docstore.index.wal.bytes.written", "WAL bytes written", i, IndexStats::walBytesWritten);
    counter(r, "docstore.index.wal.fsyncs", "WAL fsyncs", i, IndexStats::walFsyncs);
    counter(r, "docstore.index.wal.fsync.seconds", "time spent in WAL fsyncs", i, s -> s.walFsyncNanosTotal() / 1e9);
    counter(r, "docstore.index.background.failures", "failed flushes or compactions (retried)", i,
        IndexStats::backgroundFailures);
    gauge(r, "docstore.index.runs", "on-disk indexes (sorted runs) a lookup may search", i, IndexStats::indexCount);
    gauge(r, "docstore.index.frozen.tables", "memory tables waiting to be flushed", i, IndexStats::frozenTables);
    gauge(r, "docstore.index.memtable.entries", "entries in memory tables", i, IndexStats::memTableEntries);
    gauge(r, "docstore.index.bloom.resident.bytes", "bloom pages kept in memory", i, IndexStats::bloomResidentBytes);
    gauge(r, "docstore.index.bloom.budget.bytes", "memory budget for bloom pages", i, IndexStats::bloomBudgetBytes);
    gauge(r, "docstore.index.background.work", "0 idle, 1 flushing, 2 compacting", i,
        s -> s.compactionRunning() ? 2 : s.flushRunning() ? 1 : 0);
  }

  private static <S> void counter(MeterRegistry r, String name, String what, Supplier<S> stats, ToDoubleFunction<S> f) {
    FunctionCounter.builder(name, stats, s -> f.applyAsDouble(s.get())).description(what).register(r);
  }

  private static void bloom(MeterRegistry r, String answer, String what, Supplier<IndexStats> stats,
      ToDoubleFunction<IndexStats> f) {
    FunctionCounter.builder("docstore.index.bloom.answers", stats, s -> f.applyAsDouble(s.get())).tag("answer", answer)
        .description(what).register(r);
  }

  private static <S> void gauge(MeterRegistry r, String name, String what, Supplier<S> stats, ToDoubleFunction<S> f) {
    Gauge.builder(name, stats, s -> f.applyAsDouble(s.get())).description(what).register(r);
  }
}
