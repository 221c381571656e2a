package io.docstore.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.index.bloom.BloomBuilder;
import io.docstore.index.bloom.BloomFilter;
import io.docstore.index.bloom.BloomFormat;
import io.docstore.index.bloom.BloomPager;
import io.docstore.index.bloom.BloomPolicy;
import io.docstore.index.file.FileHeader;
import io.docstore.index.manifest.Manifest;
import io.docstore.index.table.EntryIterator;
import io.docstore.index.table.Table;
import io.docstore.index.table.TableWriter;
import io.docstore.index.wal.WalFormat;
import io.docstore.index.wal.WalReader;
import io.docstore.index.wal.WalWriter;
import io.docstore.io.Checksums;
import io.docstore.io.FileSystem;
import io.docstore.io.SyncPolicy;
import io.docstore.io.UnsupportedFormatException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Freezes the formats of every index file: files written today must equal the golden bytes in
 * {@code src/test/resources/golden/}, and the golden bytes of every version this build reads must
 * read back as the documented content. {@code golden/v1/} holds version 1 of every file; {@code
 * golden/vN/} holds only the files whose format has reached version N (so far the bloom file and
 * the WAL, version 2). A deliberate format change bumps that file's version and adds a golden file;
 * the old one stays, read by {@link #goldenFilesReadBackAsDocumented}. To regenerate, run with
 * {@code -Ddocstore.golden.write=<dir>}, which writes into {@code <dir>/vN/} every file this build
 * writes in version N (the version-1 WAL is frozen: this build no longer writes it), and copy the
 * new files into the resources.
 */
class GoldenFormatTest {

  @TempDir Path dir;

  private static long value(long id) {
    return id % 7 == 0 ? -2L : id * 1000 + 1;
  }

  /** Writes every file as this build does; the bloom file in format {@code bloomVersion}. */
  private void writeAll(Path out, int bloomVersion) throws IOException {
    FileSystem fs = FileSystem.real();
    BloomBuilder bloom = new BloomBuilder(bloomVersion, 300, 0.01);
    TableWriter w = new TableWriter(fs, out.resolve("0000000002.idx"), bloom);
    for (long id = 1; id <= 300; id++) {
      w.add(id * 3, value(id * 3));
    }
    w.finish();
    bloom.writeTo(fs, out.resolve("0000000002.bloom"));
    try (WalWriter wal =
        WalWriter.create(fs, out.resolve("0000000003.wal"), 3, SyncPolicy.NONE, n -> {})) {
      wal.append(10, 100);
      wal.sync(); // the next record is preceded by a sync mark claiming the 56 bytes forced
      wal.append(11, -2);
      wal.append(new long[] {12, 13, 14}, new long[] {120, 130, -2}, 0, 3);
    }
    Files.write(
        out.resolve("MANIFEST"),
        new Manifest(4, 3, List.of(new Manifest.TableRef(2, 300))).encode());
  }

  private static final String BLOOM = "0000000002.bloom";
  private static final String WAL = "0000000003.wal";
  private static final String[] FILES = {"0000000002.idx", BLOOM, WAL, "MANIFEST"};

  /** The format version this build writes for each of {@link #FILES}. */
  private static int writtenVersion(String name) {
    return switch (name) {
      case BLOOM -> BloomFormat.VERSION;
      case WAL -> WalFormat.VERSION;
      default -> 1;
    };
  }

  /** The golden version of {@code name} read back in the run for {@code version}. */
  private static int goldenVersion(String name, int version) {
    return name.equals(BLOOM) || name.equals(WAL) ? version : 1;
  }

  private static byte[] golden(int version, String name) throws IOException {
    try (InputStream in =
        GoldenFormatTest.class.getResourceAsStream("/golden/v" + version + "/" + name)) {
      assertThat(in).as("golden file v%d/%s", version, name).isNotNull();
      return in.readAllBytes();
    }
  }

  @Test
  void writersProduceTheGoldenBytes() throws IOException {
    writeAll(dir, BloomFormat.VERSION);
    Path v1Bloom = Files.createDirectories(dir.resolve("v1"));
    writeAll(v1Bloom, 1);
    String regen = System.getProperty("docstore.golden.write");
    if (regen != null) {
      Path out = Path.of(regen);
      for (int bloomVersion = 1; bloomVersion <= BloomFormat.VERSION; bloomVersion++) {
        Path written = Files.createDirectories(dir.resolve("regen-" + bloomVersion));
        writeAll(written, bloomVersion);
        for (String f : FILES) {
          int v = f.equals(BLOOM) ? bloomVersion : writtenVersion(f);
          Files.copy(
              written.resolve(f),
              Files.createDirectories(out.resolve("v" + v)).resolve(f),
              StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
    for (String f : FILES) {
      assertThat(Files.readAllBytes(dir.resolve(f)))
          .as("%s differs from golden v%d", f, writtenVersion(f))
          .isEqualTo(golden(writtenVersion(f), f));
    }
    // The version-1 bloom math is frozen too: this build still computes exactly the bits it reads.
    assertThat(Files.readAllBytes(v1Bloom.resolve(BLOOM)))
        .as("v1 bloom differs from golden v1")
        .isEqualTo(golden(1, BLOOM));
  }

  @ParameterizedTest(name = "bloom and WAL v{0}")
  @ValueSource(ints = {1, 2})
  void goldenFilesReadBackAsDocumented(int bloomVersion) throws IOException {
    for (String f : FILES) {
      Files.write(dir.resolve(f), golden(goldenVersion(f, bloomVersion), f));
    }
    FileSystem fs = FileSystem.real();
    try (BloomPager pager = new BloomPager(1 << 20, BloomPolicy.USEFULNESS)) {
      Table t =
          Table.open(
              fs,
              dir.resolve("0000000002.idx"),
              2,
              BloomFilter.open(fs, dir.resolve(BLOOM), pager));
      try {
        BloomFilter bloom = t.bloom();
        assertThat(bloom.version()).isEqualTo(bloomVersion);
        assertThat(bloom.pageCount()).isEqualTo(1);
        assertThat(bloom.probes()).isEqualTo(7);
        assertThat(bloom.keys()).isEqualTo(300);
        // One page for 300 keys (109 bits a key): none of the 600 absent ids among 1..900 is a
        // false positive.
        for (long id = 1; id <= 900; id++) {
          if (id % 3 != 0) {
            assertThat(bloom.query(id))
                .as("absent id %d in the v%d golden bloom", id, bloomVersion)
                .isEqualTo(BloomFilter.NO);
          }
        }
        assertThat(t.entryCount()).isEqualTo(300);
        assertThat(t.minId()).isEqualTo(3);
        assertThat(t.maxId()).isEqualTo(900);
        assertThat(t.pageCount()).isEqualTo(2);
        assertThat(t.find(21)).isEqualTo(-2L);
        assertThat(t.find(900)).isEqualTo(900_001L);
        assertThat(t.find(901)).isEqualTo(-1L);
        int n = 0;
        try (EntryIterator it = t.iterator(0)) {
          while (it.next()) {
            n++;
            assertThat(it.value()).isEqualTo(value(it.id()));
            assertThat(t.bloom().query(it.id())).isEqualTo(BloomFilter.MAYBE);
          }
        }
        assertThat(n).isEqualTo(300);
      } finally {
        t.release();
      }
    }
    List<long[]> wal = new ArrayList<>();
    List<long[]> marks = new ArrayList<>();
    WalReader.Result r =
        WalReader.replay(
            fs,
            dir.resolve(WAL),
            true,
            new WalReader.Sink() {
              @Override
              public void accept(long id, long value) {
                wal.add(new long[] {id, value});
              }

              @Override
              public void mark(long offset, long syncedEnd) {
                marks.add(new long[] {offset, syncedEnd});
              }
            });
    assertThat(r.droppedBytes()).isZero();
    assertThat(r.version()).isEqualTo(bloomVersion);
    if (bloomVersion == 1) {
      assertThat(marks).isEmpty();
    } else {
      // put(10, 100) forced at 56 bytes; the mark right after it claims them (docs/formats/wal.md).
      assertThat(marks).containsExactly(new long[] {56, 56});
    }
    assertThat(wal)
        .containsExactly(
            new long[] {10, 100},
            new long[] {11, -2},
            new long[] {12, 120},
            new long[] {13, 130},
            new long[] {14, -2});
    assertThat(Manifest.read(fs, dir))
        .isEqualTo(new Manifest(4, 3, List.of(new Manifest.TableRef(2, 300))));
  }

  /**
   * What a build that reads only bloom version 1 does with a version-2 file: its {@code
   * BloomFilter.open} checked the header with {@code FileHeader.read(..., 1, 1)}, which refuses the
   * file as too new (not corrupt), naming file, format and both versions.
   */
  @Test
  void aVersionOneReaderRefusesTheVersionTwoBloomAsTooNew() throws IOException {
    ByteBuffer head = ByteBuffer.wrap(golden(2, BLOOM)).order(ByteOrder.LITTLE_ENDIAN);
    assertThatThrownBy(() -> FileHeader.read(head, 0, dir.resolve(BLOOM), BloomFormat.FORMAT, 1, 1))
        .isInstanceOf(UnsupportedFormatException.class)
        .hasMessageContaining(
            BLOOM + ": IDXBLOOM format version 2 is too new (this build reads 1..1)")
        .satisfies(
            e ->
                assertThat(((UnsupportedFormatException) e).kind())
                    .isEqualTo(UnsupportedFormatException.Kind.TOO_NEW));
  }

  /** A build that reads only WAL version 1 refuses a version-2 WAL as too new, not as corrupt. */
  @Test
  void aVersionOneReaderRefusesTheVersionTwoWalAsTooNew() throws IOException {
    ByteBuffer head = ByteBuffer.wrap(golden(2, WAL)).order(ByteOrder.LITTLE_ENDIAN);
    assertThatThrownBy(() -> FileHeader.read(head, 0, dir.resolve(WAL), WalFormat.FORMAT, 1, 1))
        .isInstanceOf(UnsupportedFormatException.class)
        .hasMessageContaining(WAL + ": IDXWAL format version 2 is too new (this build reads 1..1)");
  }

  @Test
  void newerVersionIsRejectedAsTooNewNotCorrupt() throws IOException {
    byte[] m = golden(1, "MANIFEST");
    ByteBuffer b = ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(FileHeader.VERSION_OFFSET, 2);
    b.putInt(FileHeader.CRC_OFFSET, Checksums.crc32c(b, 0, FileHeader.CRC_OFFSET));
    Files.write(dir.resolve("MANIFEST"), m);
    assertThatThrownBy(() -> Manifest.read(FileSystem.real(), dir))
        .isInstanceOf(UnsupportedFormatException.class)
        .satisfies(
            e ->
                assertThat(((UnsupportedFormatException) e).kind())
                    .isEqualTo(UnsupportedFormatException.Kind.TOO_NEW));
    b.putInt(FileHeader.VERSION_OFFSET, 0);
    b.putInt(FileHeader.CRC_OFFSET, Checksums.crc32c(b, 0, FileHeader.CRC_OFFSET));
    Files.write(dir.resolve("MANIFEST"), m);
    assertThatThrownBy(() -> Manifest.read(FileSystem.real(), dir))
        .isInstanceOf(UnsupportedFormatException.class)
        .satisfies(
            e ->
                assertThat(((UnsupportedFormatException) e).kind())
                    .isEqualTo(UnsupportedFormatException.Kind.TOO_OLD));
  }
}
