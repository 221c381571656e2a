package io.docstore.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.index.file.FileNames;
import io.docstore.io.FaultInjectingFileSystem.Op;
import io.docstore.io.FileSystem;
import io.docstore.io.InterceptingFileSystem;
import io.docstore.io.SyncPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The facade's contract: validation, absent/deleted, batches, scans as snapshots, stats, orphans.
 */
class LsmIndexTest {

  @TempDir Path dir;

  private IndexOptions small() {
    return IndexOptions.builder().syncPolicy(SyncPolicy.NONE).memTableBytes(4096).build();
  }

  @Test
  void validatesArguments() throws IOException {
    try (LsmIndex index = LsmIndex.open(dir, IndexOptions.defaults())) {
      assertThatThrownBy(() -> index.put(-1, 0)).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> index.put(1, -1)).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> index.delete(-5)).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> index.putAll(new long[] {1, 2}, new long[] {1, -3}, 2))
          .isInstanceOf(IllegalArgumentException.class);
      assertThat(index.get(1)).as("a rejected batch writes nothing").isEqualTo(LsmIndex.ABSENT);
      assertThatThrownBy(() -> index.putAll(new long[1], new long[1], 2))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  /** Opening to read and closing (an offline get or stats) leaves no file behind, however often. */
  @Test
  void anOpenWithoutWritesLeavesNoWalBehind() throws IOException {
    try (LsmIndex index = LsmIndex.open(dir, small())) {
      index.put(7, 70);
    }
    long walsAfterWrite = walFiles();
    for (int i = 0; i < 5; i++) {
      try (LsmIndex index = LsmIndex.open(dir, small())) {
        assertThat(index.get(7)).isEqualTo(70);
      }
      assertThat(walFiles()).as("WAL files after read-only open %d", i).isEqualTo(walsAfterWrite);
    }
    try (LsmIndex index = LsmIndex.open(dir, small())) {
      index.put(8, 80);
    }
    try (LsmIndex index = LsmIndex.open(dir, small())) {
      assertThat(index.get(7)).isEqualTo(70);
      assertThat(index.get(8)).isEqualTo(80);
    }
  }

  private long walFiles() throws IOException {
    try (var files = java.nio.file.Files.list(dir)) {
      return files.filter(p -> p.getFileName().toString().endsWith(".wal")).count();
    }
  }

  @Test
  void absentDeletedAndBatches() throws IOException {
    try (LsmIndex index = LsmIndex.open(dir, IndexOptions.defaults())) {
      index.put(1, 10);
      index.delete(2);
      index.putAll(new long[] {3, 4, 1}, new long[] {30, LsmIndex.DELETED, 11}, 3);
      index.sync();
      assertThat(index.get(1)).isEqualTo(11);
      assertThat(index.get(2)).isEqualTo(LsmIndex.DELETED);
      assertThat(index.get(3)).isEqualTo(30);
      assertThat(index.get(4)).isEqualTo(LsmIndex.DELETED);
      assertThat(index.get(5)).isEqualTo(LsmIndex.ABSENT);
      IndexStats s = index.stats();
      assertThat(s.puts()).isEqualTo(3);
      assertThat(s.deletes()).isEqualTo(2);
      assertThat(s.gets()).isEqualTo(5);
      assertThat(s.walFsyncs()).isPositive();
    }
    try (LsmIndex index = LsmIndex.open(dir, IndexOptions.defaults())) {
      assertThat(index.get(1)).isEqualTo(11);
      assertThat(index.get(4)).isEqualTo(LsmIndex.DELETED);
    }
  }

  /** Positional reads; with mapped reads the cache serves only while they are cold (TableTest). */
  @Test
  void pageCacheAnswersRepeatedLookupsWithoutReadingPages() throws IOException {
    IndexOptions opts =
        IndexOptions.builder()
            .syncPolicy(SyncPolicy.NONE)
            .memTableBytes(64 * 1024)
            .pageCacheBytes(1 << 20)
            .mappedReads(false)
            .build();
    int n = 20_000;
    try (LsmIndex index = LsmIndex.open(dir, opts)) {
      for (long id = 0; id < n; id++) {
        index.put(id * 3, id + 100);
      }
      index.flush();
      for (int round = 0; round < 2; round++) {
        for (long id = 0; id < n; id++) {
          assertThat(index.get(id * 3)).isEqualTo(id + 100);
          assertThat(index.get(id * 3 + 1)).isIn(LsmIndex.ABSENT);
        }
      }
      IndexStats s = index.stats();
      assertThat(s.pageCacheCapacityBytes()).isEqualTo(1 << 20);
      assertThat(s.pageCacheHits())
          .as("second round served from the cache")
          .isGreaterThanOrEqualTo(n);
      assertThat(s.pageCacheMisses())
          .as("a page is read once while the cache has room")
          .isLessThanOrEqualTo(s.pagesRead() - s.pageCacheHits());
      assertThat(s.pageCacheBytes()).isPositive().isLessThanOrEqualTo(1 << 20);
      assertThat(s.pageCacheEvictions()).isZero();
    }
    try (LsmIndex index =
        LsmIndex.open(
            dir,
            IndexOptions.builder()
                .syncPolicy(SyncPolicy.NONE)
                .memTableBytes(4096)
                .pageCacheBytes(0)
                .build())) {
      assertThat(index.stats().pageCacheCapacityBytes()).isZero();
      assertThat(index.get(3)).isEqualTo(101);
      assertThat(index.stats().pageCacheHits()).isZero();
    }
  }

  @Test
  void scanIsASnapshotUnaffectedByLaterWritesAndFlushes() throws IOException {
    try (LsmIndex index = LsmIndex.open(dir, small())) {
      for (long i = 0; i < 1000; i++) {
        index.put(i, i);
      }
      try (IndexCursor c = index.scan(500)) {
        for (long i = 0; i < 1000; i++) {
          index.put(i, i + 1);
        }
        index.delete(600);
        index.flush();
        for (long i = 500; i < 1000; i++) {
          assertThat(c.next()).isTrue();
          assertThat(c.id()).isEqualTo(i);
          assertThat(c.value()).isEqualTo(i);
        }
        assertThat(c.next()).isFalse();
      }
      try (IndexCursor c = index.scan(599)) {
        assertThat(c.next()).isTrue();
        assertThat(c.id()).isEqualTo(599);
        assertThat(c.next()).isTrue();
        assertThat(c.id()).isEqualTo(601);
        assertThat(c.value()).isEqualTo(602);
      }
    }
  }

  @Test
  void flushesCompactAndObsoleteFilesAreDeleted() throws IOException {
    try (LsmIndex index = LsmIndex.open(dir, small())) {
      for (int round = 0; round < 4; round++) {
        for (long i = 0; i < 100; i++) {
          index.put(round * 100 + i, i);
        }
        index.flush();
      }
      assertThat(index.indexSizes()).containsExactly(400L);
      IndexStats s = index.stats();
      assertThat(s.flushes()).isGreaterThanOrEqualTo(4);
      assertThat(s.compactions()).isPositive();
      assertThat(s.indexCount()).isEqualTo(1);
      assertThat(s.tableEntriesWritten()).isGreaterThanOrEqualTo(800);
    }
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(
              files
                  .map(FileNames::parse)
                  .filter(p -> p != null && p.kind() == FileNames.Kind.TABLE)
                  .count())
          .isEqualTo(1);
    }
  }

  @Test
  void statsTellWhetherAFlushOrACompactionIsWriting() throws Exception {
    Semaphore writing = new Semaphore(0);
    Semaphore proceed = new Semaphore(0);
    // Holds the background thread as it creates an index file, so the test can look at the stats
    // while that flush (or compaction) is in progress.
    FileSystem fs =
        new InterceptingFileSystem(
            FileSystem.real(),
            (op, p) -> {
              FileNames.Parsed parsed = FileNames.parse(p);
              if (op == Op.CREATE && parsed != null && parsed.kind() == FileNames.Kind.TABLE) {
                writing.release();
                try {
                  if (!proceed.tryAcquire(30, TimeUnit.SECONDS)) {
                    throw new IOException("test never let the flush proceed");
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  throw new IOException(e);
                }
              }
            });
    IndexOptions opts =
        IndexOptions.builder()
            .fileSystem(fs)
            .syncPolicy(SyncPolicy.NONE)
            .memTableBytes(64 * 1024)
            .build();
    try (LsmIndex index = LsmIndex.open(dir, opts)) {
      assertThat(index.stats().flushRunning()).isFalse();
      for (int round = 0; round < 2; round++) {
        for (long i = 0; i < 100; i++) {
          index.put(round * 100 + i, i);
        }
        CompletableFuture<Void> flush =
            CompletableFuture.runAsync(
                () -> {
                  try {
                    index.flush();
                  } catch (IOException e) {
                    throw new UncheckedIOException(e);
                  }
                });
        assertThat(writing.tryAcquire(30, TimeUnit.SECONDS))
            .as("flush reached the table file")
            .isTrue();
        IndexStats during = index.stats();
        // The first flush has nothing to merge with; the second absorbs the first's equal-sized
        // index.
        assertThat(during.flushRunning()).isEqualTo(round == 0);
        assertThat(during.compactionRunning()).isEqualTo(round == 1);
        proceed.release();
        flush.get(30, TimeUnit.SECONDS);
        IndexStats after = index.stats();
        assertThat(after.flushRunning()).isFalse();
        assertThat(after.compactionRunning()).isFalse();
      }
      assertThat(index.indexSizes()).containsExactly(200L);
    }
  }

  @Test
  void orphansAreDeletedAtOpen() throws IOException {
    try (LsmIndex index = LsmIndex.open(dir, small())) {
      index.put(1, 1);
    }
    Files.write(dir.resolve("0000000999.idx"), new byte[10]);
    Files.write(dir.resolve("0000000999.bloom"), new byte[10]);
    Files.write(dir.resolve(".MANIFEST.1.2.tmp"), new byte[10]);
    Files.write(dir.resolve("notes.txt"), new byte[1]);
    try (LsmIndex index = LsmIndex.open(dir, small())) {
      assertThat(index.get(1)).isEqualTo(1);
    }
    assertThat(dir.resolve("0000000999.idx")).doesNotExist();
    assertThat(dir.resolve("0000000999.bloom")).doesNotExist();
    assertThat(dir.resolve(".MANIFEST.1.2.tmp")).doesNotExist();
    assertThat(dir.resolve("notes.txt")).exists();
  }

  @Test
  void closedIndexRejectsCalls() throws IOException {
    LsmIndex index = LsmIndex.open(dir, small());
    index.close();
    index.close();
    assertThatThrownBy(() -> index.put(1, 1)).isInstanceOf(IOException.class);
    assertThatThrownBy(() -> index.get(1)).isInstanceOf(IOException.class);
  }
}
