package io.docstore.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.index.file.FileNames;
import io.docstore.index.table.TableFormat;
import io.docstore.index.tools.IndexVerifier;
import io.docstore.io.CorruptionException;
import io.docstore.io.FileSystem;
import io.docstore.io.SyncPolicy;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Enumerates kinds of damage to each file type and checks the documented result: a clear {@link
 * CorruptionException} naming file and offset, a torn WAL tail dropped and counted, a bad bloom
 * page degrading to "maybe" without a wrong answer, and the verifier pointing at the damage.
 */
class CorruptionTest {

  @TempDir Path dir;

  private final IndexOptions opts =
      IndexOptions.builder().syncPolicy(SyncPolicy.NONE).memTableBytes(1 << 20).build();

  /** Two tables (1000 entries, then 100: no merge) and two WAL files holding unflushed entries. */
  @BeforeEach
  void build() throws IOException {
    try (LsmIndex index = LsmIndex.open(dir, opts)) {
      for (long i = 0; i < 1000; i++) {
        index.put(i * 2, i);
      }
      index.flush();
      for (long i = 0; i < 100; i++) {
        index.put(i * 2 + 1, i);
      }
      index.flush();
      index.put(5_000, 1);
    }
    try (LsmIndex index = LsmIndex.open(dir, opts)) {
      index.put(5_001, 2);
      index.put(5_002, 3);
    }
    assertThat(IndexVerifier.verify(FileSystem.real(), dir)).isEmpty();
  }

  private List<Path> files(FileNames.Kind kind) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(
              p -> {
                FileNames.Parsed n = FileNames.parse(p);
                return n != null && n.kind() == kind;
              })
          .sorted()
          .toList();
    }
  }

  private static void flipBit(Path file, long offset) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.seek(offset);
      int b = f.read();
      f.seek(offset);
      f.write(b ^ 0x10);
    }
  }

  private static void truncate(Path file, long size) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.setLength(size);
    }
  }

  @Test
  void flippedBitInTablePageFailsTheLookupNamingFileAndOffset() throws IOException {
    Path oldest = files(FileNames.Kind.TABLE).get(0);
    long pageOffset = TableFormat.pageOffset(1);
    flipBit(oldest, pageOffset + 100);
    try (LsmIndex index = LsmIndex.open(dir, opts)) {
      long idInPage1 = 2L * TableFormat.ENTRIES_PER_PAGE + 10;
      assertThatThrownBy(() -> index.get(idInPage1))
          .isInstanceOf(CorruptionException.class)
          .satisfies(
              e -> {
                assertThat(((CorruptionException) e).file()).isEqualTo(oldest);
                assertThat(((CorruptionException) e).offset()).isEqualTo(pageOffset);
              });
      assertThat(index.get(0)).isZero();
      assertThatThrownBy(() -> drain(index)).isInstanceOf(CorruptionException.class);
    }
    assertThat(IndexVerifier.verify(FileSystem.real(), dir))
        .anySatisfy(
            p -> {
              assertThat(p.file()).isEqualTo(oldest);
              assertThat(p.offset()).isEqualTo(pageOffset);
            });
  }

  private static void drain(LsmIndex index) throws IOException {
    try (IndexCursor c = index.scan(0)) {
      while (c.next()) {
        c.id();
      }
    }
  }

  @Test
  void flippedBitInTableTrailerFailsOpen() throws IOException {
    Path table = files(FileNames.Kind.TABLE).get(1);
    flipBit(table, Files.size(table) - 20);
    assertThatThrownBy(() -> LsmIndex.open(dir, opts))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining(table.toString())
        .hasMessageContaining("checksum mismatch");
    assertThat(IndexVerifier.verify(FileSystem.real(), dir))
        .anySatisfy(p -> assertThat(p.file()).isEqualTo(table));
  }

  @Test
  void flippedBitInFenceIndexFailsOpen() throws IOException {
    Path table = files(FileNames.Kind.TABLE).get(0);
    flipBit(table, TableFormat.pageOffset(4) + 3);
    assertThatThrownBy(() -> LsmIndex.open(dir, opts))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining(table.toString());
  }

  @Test
  void truncatedTableFailsOpen() throws IOException {
    Path table = files(FileNames.Kind.TABLE).get(0);
    truncate(table, Files.size(table) - 7);
    assertThatThrownBy(() -> LsmIndex.open(dir, opts))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining(table.toString());
  }

  @Test
  void zeroedHeaderFailsOpen() throws IOException {
    Path table = files(FileNames.Kind.TABLE).get(0);
    try (RandomAccessFile f = new RandomAccessFile(table.toFile(), "rw")) {
      f.write(new byte[32]);
    }
    assertThatThrownBy(() -> LsmIndex.open(dir, opts))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("bad magic");
  }

  @Test
  void flippedBitInBloomPageAnswersMaybeAndIsCounted() throws IOException {
    Path bloom = files(FileNames.Kind.BLOOM).get(0);
    flipBit(bloom, 4096 + 17);
    try (LsmIndex index = LsmIndex.open(dir, opts)) {
      for (long i = 0; i < 1000; i++) {
        assertThat(index.get(i * 2)).isEqualTo(i);
      }
      assertThat(index.stats().bloomCorruptPages()).isEqualTo(1);
    }
    assertThat(IndexVerifier.verify(FileSystem.real(), dir))
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.file()).isEqualTo(bloom);
              assertThat(p.offset()).isEqualTo(4096);
            });
  }

  @Test
  void flippedBitInBloomTrailerOrTruncatedBloomFailsOpen() throws IOException {
    Path bloom = files(FileNames.Kind.BLOOM).get(0);
    flipBit(bloom, Files.size(bloom) - 6);
    assertThatThrownBy(() -> LsmIndex.open(dir, opts))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining(bloom.toString());
    truncate(bloom, 5000);
    assertThatThrownBy(() -> LsmIndex.open(dir, opts))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining(bloom.toString());
  }

  @Test
  void flippedBitOrTruncationInManifestFailsOpen() throws IOException {
    Path manifest = dir.resolve(FileNames.MANIFEST);
    byte[] good = Files.readAllBytes(manifest);
    flipBit(manifest, 40);
    assertThatThrownBy(() -> LsmIndex.open(dir, opts))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining(manifest.toString());
    assertThat(IndexVerifier.verify(FileSystem.real(), dir))
        .singleElement()
        .satisfies(p -> assertThat(p.file()).isEqualTo(manifest));
    Files.write(manifest, java.util.Arrays.copyOf(good, good.length - 3));
    assertThatThrownBy(() -> LsmIndex.open(dir, opts))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining(manifest.toString());
  }

  @Test
  void flippedBitInNewestWalIsATornTailDroppedAndCounted() throws IOException {
    List<Path> wals = files(FileNames.Kind.WAL);
    Path newest = wals.get(wals.size() - 1);
    long size = Files.size(newest);
    flipBit(newest, size - 3);
    try (LsmIndex index = LsmIndex.open(dir, opts)) {
      assertThat(index.stats().walBytesDropped()).isEqualTo(24);
      assertThat(index.get(5_001)).isEqualTo(2);
      assertThat(index.get(5_002)).isEqualTo(LsmIndex.ABSENT);
      assertThat(index.get(5_000)).isEqualTo(1);
    }
    assertThat(Files.size(newest)).isEqualTo(size - 24);
  }

  @Test
  void truncatedNewestWalDropsThePartialRecord() throws IOException {
    List<Path> wals = files(FileNames.Kind.WAL);
    Path newest = wals.get(wals.size() - 1);
    truncate(newest, Files.size(newest) - 5);
    try (LsmIndex index = LsmIndex.open(dir, opts)) {
      assertThat(index.stats().walBytesDropped()).isEqualTo(19);
      assertThat(index.get(5_002)).isEqualTo(LsmIndex.ABSENT);
      assertThat(index.get(5_001)).isEqualTo(2);
    }
  }

  @Test
  void tornCreateOfNewestWalIsDroppedAndStaysDroppedAcrossReopens() throws IOException {
    List<Path> wals = files(FileNames.Kind.WAL);
    Path newest = wals.get(wals.size() - 1);
    truncate(newest, 0);
    try (LsmIndex index = LsmIndex.open(dir, opts)) {
      assertThat(index.get(5_000)).isEqualTo(1);
      assertThat(index.get(5_001)).isEqualTo(LsmIndex.ABSENT);
    }
    assertThat(newest).doesNotExist();
    try (LsmIndex index = LsmIndex.open(dir, opts)) {
      assertThat(index.get(5_000)).isEqualTo(1);
    }
  }

  @Test
  void flippedBitInOlderWalIsCorruption() throws IOException {
    List<Path> wals = files(FileNames.Kind.WAL);
    assertThat(wals).hasSizeGreaterThanOrEqualTo(2);
    Path older = wals.get(0);
    flipBit(older, 32 + 10);
    assertThatThrownBy(() -> LsmIndex.open(dir, opts))
        .isInstanceOf(CorruptionException.class)
        .satisfies(
            e -> {
              assertThat(((CorruptionException) e).file()).isEqualTo(older);
              assertThat(((CorruptionException) e).offset()).isEqualTo(32);
            });
    assertThat(IndexVerifier.verify(FileSystem.real(), dir))
        .singleElement()
        .satisfies(p -> assertThat(p.file()).isEqualTo(older));
  }
}
