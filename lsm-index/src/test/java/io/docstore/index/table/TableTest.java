package io.docstore.index.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.index.bloom.BloomBuilder;
import io.docstore.io.FileSystem;
import io.docstore.io.TestSupport;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** TableWriter, Table and TableIterator: every lookup, every iteration start, obsolete deletion. */
class TableTest {

  @TempDir Path dir;

  @Test
  void findsEveryEntryAndIteratesFromAnyId() throws Exception {
    long seed = TestSupport.seed("TableTest");
    SplittableRandom rnd = new SplittableRandom(seed);
    TreeMap<Long, Long> model = new TreeMap<>();
    int n = 1 + rnd.nextInt(3000);
    while (model.size() < n) {
      model.put(
          rnd.nextLong(Long.MAX_VALUE), rnd.nextInt(9) == 0 ? -2L : rnd.nextLong(Long.MAX_VALUE));
    }
    Path p = dir.resolve("0000000001.idx");
    TableWriter w = new TableWriter(FileSystem.real(), p, new BloomBuilder(n, 0.01));
    for (var e : model.entrySet()) {
      w.add(e.getKey(), e.getValue());
    }
    assertThatThrownBy(() -> w.add(0, 0)).isInstanceOf(IllegalStateException.class);
    TableWriter.Info info = w.finish();
    assertThat(info.entries()).isEqualTo(n);
    Table t = Table.open(FileSystem.real(), p, 1, null);
    Table mapped = Table.open(FileSystem.real(), p, 1, null, true);
    for (Table lookups : new Table[] {t, mapped}) {
      for (var e : model.entrySet()) {
        assertThat(lookups.find(e.getKey())).as("seed %d", seed).isEqualTo(e.getValue());
        assertThat(lookups.find(e.getKey() + 1))
            .isEqualTo(model.containsKey(e.getKey() + 1) ? model.get(e.getKey() + 1) : -1L);
      }
    }
    if (io.docstore.io.MappedFile.supported()) {
      assertThat(mappedIn(p)).as("lookups of the mapped table read its mapping").isTrue();
    }
    mapped.release();
    assertThat(mappedIn(p)).as("the last reference unmaps the file at once").isFalse();
    for (int i = 0; i < 20; i++) {
      long from = rnd.nextLong(Long.MAX_VALUE);
      try (EntryIterator it = t.iterator(from)) {
        for (var e : model.tailMap(from, true).entrySet()) {
          assertThat(it.next()).isTrue();
          assertThat(it.id()).isEqualTo(e.getKey());
          assertThat(it.value()).isEqualTo(e.getValue());
        }
        assertThat(it.next()).isFalse();
      }
    }
    assertThat(t.retain()).isTrue();
    t.markObsolete();
    t.release();
    assertThat(p).exists();
    t.release();
    assertThat(p).doesNotExist();
    assertThat(t.retain()).isFalse();
  }

  /**
   * The index page cache is asked only while mapped reads are cold: warm lookups read the page in
   * place; after a read that waited for the disk, the next lookups go to the cache (which fills as
   * usual, on a page's second miss) until the mapping is tried again. Answers are the same either
   * way.
   */
  @Test
  void warmMappedLookupsSkipThePageCacheAndColdOnesUseIt() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(io.docstore.io.MappedFile.supported());
    int n = 20_000;
    Path p = dir.resolve("0000000002.idx");
    TableWriter w = new TableWriter(FileSystem.real(), p, new BloomBuilder(n, 0.01));
    for (long id = 0; id < n; id++) {
      w.add(id * 3, id + 100);
    }
    w.finish();
    Table t = Table.open(FileSystem.real(), p, 2, null, true);
    io.docstore.io.cache.SlotCache cache =
        new io.docstore.io.cache.SlotCache(
            1 << 20, TableFormat.PAGE_SIZE, java.nio.ByteOrder.LITTLE_ENDIAN);
    io.docstore.io.ColdReads warm = new io.docstore.io.ColdReads(Long.MAX_VALUE, 1024, 1, () -> 0);
    for (int round = 0; round < 2; round++) {
      for (long id = 0; id < n; id++) {
        assertThat(t.find(id * 3, cache, warm)).isEqualTo(id + 100);
        assertThat(t.find(id * 3 + 1, cache, warm)).isEqualTo(-1L);
      }
    }
    assertThat(cache.hits() + cache.misses()).as("warm: the cache is never asked").isZero();
    assertThat(warm.coldReads()).isZero();
    // Every mapped read slow, and a fault count that grows at each look: every one waited for the
    // disk.
    java.util.concurrent.atomic.AtomicLong faults = new java.util.concurrent.atomic.AtomicLong();
    io.docstore.io.ColdReads cold =
        new io.docstore.io.ColdReads(-1, 1_000_000, 1, faults::incrementAndGet);
    for (int round = 0; round < 3; round++) {
      for (long id = 0; id < n; id++) {
        assertThat(t.find(id * 3, cache, cold)).isEqualTo(id + 100);
      }
    }
    assertThat(cold.coldReads())
        .as("one cold mapped read, then the cache for the next million")
        .isEqualTo(1);
    assertThat(cache.hits()).as("third round from the cache").isGreaterThanOrEqualTo(n - 1);
    t.release();
  }

  private static boolean mappedIn(Path file) throws java.io.IOException {
    String name = file.toRealPath().toString();
    return java.nio.file.Files.readAllLines(Path.of("/proc/self/maps")).stream()
        .anyMatch(l -> l.endsWith(" " + name));
  }
}
