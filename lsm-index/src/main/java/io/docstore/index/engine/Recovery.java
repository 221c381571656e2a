package io.docstore.index.engine;

import io.docstore.index.IndexOptions;
import io.docstore.index.bloom.BloomFilter;
import io.docstore.index.bloom.BloomPager;
import io.docstore.index.file.FileNames;
import io.docstore.index.manifest.Manifest;
import io.docstore.index.memtable.MemTable;
import io.docstore.index.table.Table;
import io.docstore.index.wal.WalReader;
import io.docstore.index.wal.WalWriter;
import io.docstore.io.AtomicFiles;
import io.docstore.io.CorruptionException;
import io.docstore.io.FileSystem;
import io.docstore.io.WritableFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens an index directory: reads the manifest, deletes orphans (temp files, tables not in the
 * manifest, WALs the manifest says are covered), opens and verifies the live tables, replays the
 * remaining WALs in order into a new memory table (cutting a torn tail off the newest one, with the
 * dropped bytes logged and counted), forces the WALs it keeps, then starts a fresh WAL: it never
 * appends after a torn tail. The replayed WAL files stay until the memory table holding their
 * entries is flushed.
 */
final class Recovery {

  private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);

  private Recovery() {}

  /**
   * Opens the index in {@code dir}; {@code readOnly}: without changing anything in it (no temp or
   * orphan file deleted, no torn tail cut, no WAL forced or started, no manifest written), for an
   * engine whose writes stay in memory.
   */
  static IndexEngine open(Path dir, IndexOptions options, boolean readOnly) throws IOException {
    FileSystem fs = options.fileSystem();
    if (!readOnly) {
      fs.createDirectories(dir);
    } else if (!fs.exists(dir)) {
      throw new java.io.FileNotFoundException("no index directory " + dir);
    }
    Manifest manifest = Manifest.read(fs, dir);
    boolean fresh = manifest == null;
    if (fresh) {
      manifest = Manifest.empty();
    }
    if (fresh) {
      for (Path p : fs.list(dir)) {
        FileNames.Parsed n = FileNames.parse(p);
        if (n != null && n.kind() == FileNames.Kind.TABLE) {
          throw new CorruptionException(
              dir.resolve(FileNames.MANIFEST),
              0,
              "manifest is missing but index tables exist ("
                  + p.getFileName()
                  + "); refusing to treat the directory as new");
        }
      }
    }
    Set<Long> live = new HashSet<>();
    for (Manifest.TableRef t : manifest.tables()) {
      live.add(t.number());
    }
    long maxSeen = 0;
    TreeSet<Long> wals = new TreeSet<>();
    for (Path p : fs.list(dir)) {
      if (AtomicFiles.isTempFile(p)) {
        if (!readOnly) {
          fs.delete(p);
        }
        continue;
      }
      FileNames.Parsed n = FileNames.parse(p);
      if (n == null) {
        continue;
      }
      maxSeen = Math.max(maxSeen, n.number());
      boolean orphan =
          switch (n.kind()) {
            case TABLE, BLOOM -> !live.contains(n.number());
            case WAL -> n.number() < manifest.minLiveWal();
          };
      if (orphan && readOnly) {
        continue; // not part of the index: read around it
      } else if (orphan) {
        LOG.info(
            "deleting {}: not referenced by the manifest (left by an interrupted flush or compaction)",
            p.getFileName());
        fs.delete(p);
      } else if (n.kind() == FileNames.Kind.WAL) {
        wals.add(n.number());
      }
    }
    BloomPager pager = new BloomPager(options.bloomMemoryBytes(), options.bloomPolicy());
    IndexEngine engine = new IndexEngine(options, dir, pager);
    List<Table> tables = new ArrayList<>();
    try {
      for (Manifest.TableRef ref : manifest.tables()) {
        Path tp = FileNames.path(dir, FileNames.Kind.TABLE, ref.number());
        Path bp = FileNames.path(dir, FileNames.Kind.BLOOM, ref.number());
        if (!fs.exists(tp) || !fs.exists(bp)) {
          throw new CorruptionException(
              fs.exists(tp) ? bp : tp, 0, "file listed in the manifest is missing");
        }
        BloomFilter bloom = BloomFilter.open(fs, bp, pager);
        Table t;
        try {
          t = Table.open(fs, tp, ref.number(), bloom, options.mappedReads());
        } catch (IOException | RuntimeException e) {
          bloom.close();
          throw e;
        }
        tables.add(t);
        if (t.entryCount() != ref.entries()) {
          throw new CorruptionException(
              tp,
              0,
              "table holds " + t.entryCount() + " entries but the manifest says " + ref.entries());
        }
      }
      long[] counted = new long[1];
      for (long w : new ArrayList<>(wals)) {
        Path wp = FileNames.path(dir, FileNames.Kind.WAL, w);
        WalReader.Result r = WalReader.replay(fs, wp, w == wals.last(), (id, v) -> counted[0]++);
        if (r.droppedBytes() > 0 && r.laterRecordsVerify()) {
          LOG.warn(
              "WAL {}: dropping a torn tail of {} bytes at offset {} ({}): whole records after it"
                  + " verify, so later records were written back before earlier ones (a power loss"
                  + " with out-of-order writeback); no sync mark says the damaged record had been"
                  + " fsynced, so none of it was acknowledged",
              wp.getFileName(),
              r.droppedBytes(),
              r.validBytes(),
              r.dropReason());
          engine.counters.walBytesDropped.addAndGet(r.droppedBytes());
        } else if (r.droppedBytes() > 0) {
          LOG.warn(
              "WAL {}: dropping a torn tail of {} bytes at offset {} ({})",
              wp.getFileName(),
              r.droppedBytes(),
              r.validBytes(),
              r.dropReason());
          engine.counters.walBytesDropped.addAndGet(r.droppedBytes());
        }
        if (r.validBytes() == 0) {
          // A torn create (not even a whole header): nothing to keep, and an empty file would
          // read as corrupt once it is no longer the newest WAL.
          if (!readOnly) {
            fs.delete(wp);
          }
          wals.remove(w);
        } else if (r.droppedBytes() > 0 && !readOnly) {
          fs.truncate(wp, r.validBytes());
        }
      }
      if (readOnly) {
        MemTable inMemory =
            new MemTable(
                options.memTableBytes(), (int) Math.min(Integer.MAX_VALUE / 2, counted[0]), 0);
        for (long w : wals) {
          // As far as it verifies: a torn tail of the newest WAL ends its replay.
          WalReader.replay(fs, FileNames.path(dir, FileNames.Kind.WAL, w), true, inMemory::put);
        }
        Snapshot first = new Snapshot(inMemory, new MemTable[0], tables.toArray(new Table[0]));
        for (Table t : tables) {
          t.release();
        }
        engine.start(first, null);
        return engine;
      }
      // Every WAL kept becomes an older WAL once the new one below exists, and an older WAL must
      // be whole: make what the previous process wrote without fsync (policy none, or the final
      // sync mark of a close under none) durable first.
      for (long w : wals) {
        try (WritableFile f = fs.openAppend(FileNames.path(dir, FileNames.Kind.WAL, w))) {
          f.force();
        }
      }
      long nextFile = Math.max(manifest.nextFileNumber(), maxSeen + 1);
      long walNumber = nextFile++;
      MemTable active =
          new MemTable(
              options.memTableBytes(),
              (int) Math.min(Integer.MAX_VALUE / 2, counted[0]),
              walNumber);
      for (long w : wals) {
        WalReader.replay(fs, FileNames.path(dir, FileNames.Kind.WAL, w), true, active::put);
      }
      if (fresh) {
        new Manifest(nextFile, 0, List.of()).publish(fs, dir);
      }
      WalWriter wal =
          WalWriter.create(
              fs,
              FileNames.path(dir, FileNames.Kind.WAL, walNumber),
              walNumber,
              options.syncPolicy(),
              engine.counters::walFsync);
      synchronized (engine.stateLock) {
        engine.nextFileNumber = nextFile;
        engine.walFiles.addAll(wals);
        engine.walFiles.add(walNumber);
      }
      Snapshot first = new Snapshot(active, new MemTable[0], tables.toArray(new Table[0]));
      for (Table t : tables) {
        t.release();
      }
      if (!wals.isEmpty()) {
        LOG.info("recovered {} entries from {} WAL file(s) in {}", active.size(), wals.size(), dir);
      }
      engine.start(first, wal);
      return engine;
    } catch (IOException | RuntimeException e) {
      for (Table t : tables) {
        try {
          t.release();
        } catch (IOException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      pager.close();
      throw e;
    }
  }
}
