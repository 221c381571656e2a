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

  @TempDir
  Path dir;

  @Test
  void findsEveryEntryAndIteratesFromAnyId() throws Exception {
    long seed = TestSupport.seed("TableTest");
    SplittableRandom rnd = new SplittableRandom(seed);
    TreeMap<Long, Long> model = new TreeMap<>();
    int n = 1 + rnd.nextInt(3000);
    while (model.size() < n) {
      model.put(rnd.nextLong(Long.MAX_VALUE), rnd.nextInt(9) == 0 ? -2L : rnd.nextLong(Long.MAX_VALUE));
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

  private static boolean mappedIn(Path file) throws java.io.IOException {
    String name = file.toRealPath().toString();
    return java.nio.file.Files.readAllLines(Path.of("/proc/self/maps")).stream().anyMatch(l -> l.endsWith(" " + name));
  }
}
