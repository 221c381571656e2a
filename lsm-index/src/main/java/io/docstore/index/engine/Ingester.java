package io.docstore.index.engine;

import io.docstore.index.bloom.BloomBuilder;
import io.docstore.index.file.FileNames;
import io.docstore.index.manifest.Manifest;
import io.docstore.index.table.Table;
import io.docstore.index.table.TableWriter;
import io.docstore.io.FileSystem;
import io.docstore.io.KillPoints;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Bulk ingestion of a sorted run as one new index file, off the WAL and memory-table path (the
 * RocksDB {@code ingestExternalFile} idea). In this order:
 *
 * <ol>
 *   <li>table and bloom files written and forced, directory synced, on the caller's thread while
 *       writers and the flusher carry on (the files are orphans until the manifest names them);
 *   <li>under the writer lock: the memory tables are flushed, so no memory entry is older than the
 *       run yet searched before it;
 *   <li>on the background thread (so no flush or compaction changes the table list meanwhile): a
 *       manifest naming the new table as the newest is published (the commit point: a crash before
 *       it leaves orphans the next open deletes, after it the whole run is there), then the
 *       snapshot with the new table first is installed.
 * </ol>
 *
 * Newest wins: the run shadows every entry written before the call, and every later write shadows
 * the run. Later flushes absorb the table by the usual size-tiered rule.
 */
final class Ingester {

  private Ingester() {}

  static void ingest(IndexEngine engine, long[] ids, long[] values, int count) throws IOException {
    for (int i = 1; i < count; i++) {
      if (ids[i] <= ids[i - 1]) {
        throw new IllegalArgumentException(
            "ids must be strictly ascending: " + ids[i] + " at " + i + " after " + ids[i - 1]);
      }
    }
    FileSystem fs = engine.options.fileSystem();
    long number = engine.allocateFileNumber();
    Path tablePath = FileNames.path(engine.dir, FileNames.Kind.TABLE, number);
    Path bloomPath = FileNames.path(engine.dir, FileNames.Kind.BLOOM, number);
    BloomBuilder bloom = new BloomBuilder(count, engine.options.bloomFalsePositiveRate());
    TableWriter w = new TableWriter(fs, tablePath, bloom);
    Table created;
    try {
      for (int i = 0; i < count; i++) {
        w.add(ids[i], values[i]);
      }
      created = Flusher.openWritten(engine, w.finish(), bloom, tablePath, bloomPath, number, false);
    } catch (IOException | RuntimeException e) {
      w.abort();
      fs.delete(bloomPath);
      throw e;
    }
    KillPoints.reach("index.ingest.after-write");
    boolean installed = false;
    try {
      engine.writeLock.lock();
      try {
        engine.flush();
        engine.onBackground(
            () -> {
              install(engine, created);
              return null;
            });
        installed = true;
      } finally {
        engine.writeLock.unlock();
      }
    } finally {
      if (!installed) {
        created.markObsolete();
      }
      created.release();
    }
  }

  /** Background thread: publish the manifest with the new table first, then install it. */
  private static void install(IndexEngine engine, Table created) throws IOException {
    FileSystem fs = engine.options.fileSystem();
    Snapshot s;
    long nextFile;
    synchronized (engine.stateLock) {
      s = engine.currentLocked();
      nextFile = engine.nextFileNumber;
    }
    if (s.frozen.length > 0) {
      throw new IllegalStateException("memory tables waiting to be flushed while ingesting");
    }
    Manifest old = Manifest.read(fs, engine.dir);
    if (old == null) {
      throw new IOException("index manifest in " + engine.dir + " vanished");
    }
    List<Manifest.TableRef> refs = new ArrayList<>();
    refs.add(new Manifest.TableRef(created.number(), created.entryCount()));
    refs.addAll(old.tables());
    KillPoints.reach("index.ingest.before-manifest");
    new Manifest(nextFile, old.minLiveWal(), refs).publish(fs, engine.dir);
    KillPoints.reach("index.ingest.after-manifest");
    engine.counters.flushes.incrementAndGet();
    synchronized (engine.stateLock) {
      Snapshot cur = engine.currentLocked();
      Table[] tables = new Table[cur.tables.length + 1];
      tables[0] = created;
      System.arraycopy(cur.tables, 0, tables, 1, cur.tables.length);
      engine.installLocked(new Snapshot(cur.active, cur.frozen, tables));
    }
  }
}
