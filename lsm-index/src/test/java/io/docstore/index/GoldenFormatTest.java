package io.docstore.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.index.bloom.BloomBuilder;
import io.docstore.index.bloom.BloomFilter;
import io.docstore.index.bloom.BloomPager;
import io.docstore.index.bloom.BloomPolicy;
import io.docstore.index.file.FileHeader;
import io.docstore.index.manifest.Manifest;
import io.docstore.index.table.EntryIterator;
import io.docstore.index.table.Table;
import io.docstore.index.table.TableWriter;
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
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Freezes format version 1 of every index file: files written today must equal the golden bytes
 * in {@code src/test/resources/golden/}, and the golden bytes must read back as the documented
 * content. A deliberate format change bumps the version and adds new golden files; to regenerate,
 * run with {@code -Ddocstore.golden.write=<dir>} and copy the files into the resources.
 */
class GoldenFormatTest {

  @TempDir
  Path dir;

  private static long value(long id) {
    return id % 7 == 0 ? -2L : id * 1000 + 1;
  }

  private void writeAll(Path out) throws IOException {
    FileSystem fs = FileSystem.real();
    BloomBuilder bloom = new BloomBuilder(300, 0.01);
    TableWriter w = new TableWriter(fs, out.resolve("0000000002.idx"), bloom);
    for (long id = 1; id <= 300; id++) {
      w.add(id * 3, value(id * 3));
    }
    w.finish();
    bloom.writeTo(fs, out.resolve("0000000002.bloom"));
    try (WalWriter wal = WalWriter.create(fs, out.resolve("0000000003.wal"), 3, SyncPolicy.NONE, n -> { })) {
      wal.append(10, 100);
      wal.append(11, -2);
      wal.append(new long[] {12, 13, 14}, new long[] {120, 130, -2}, 0, 3);
    }
    Files.write(out.resolve("MANIFEST"), new Manifest(4, 3, List.of(new Manifest.TableRef(2, 300))).encode());
  }

  private static final String[] FILES = {"0000000002.idx", "0000000002.bloom", "0000000003.wal", "MANIFEST"};

  private static byte[] golden(String name) throws IOException {
    try (InputStream in = GoldenFormatTest.class.getResourceAsStream("/golden/v1/" + name)) {
      assertThat(in).as("golden file %s", name).isNotNull();
      return in.readAllBytes();
    }
  }

  @Test
  void writersProduceTheGoldenBytes() throws IOException {
    writeAll(dir);
    String regen = System.getProperty("docstore.golden.write");
    if (regen != null) {
      writeAll(Files.createDirectories(Path.of(regen)));
    }
    for (String f : FILES) {
      assertThat(Files.readAllBytes(dir.resolve(f))).as("%s differs from golden v1", f).isEqualTo(golden(f));
    }
  }

  @Test
  void goldenFilesReadBackAsDocumented() throws IOException {
    for (String f : FILES) {
      Files.write(dir.resolve(f), golden(f));
    }
    FileSystem fs = FileSystem.real();
    try (BloomPager pager = new BloomPager(1 << 20, BloomPolicy.USEFULNESS)) {
      Table t = Table.open(fs, dir.resolve("0000000002.idx"), 2, BloomFilter.open(fs, dir.resolve("0000000002.bloom"), pager));
      try {
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
    WalReader.Result r = WalReader.replay(fs, dir.resolve("0000000003.wal"), true, (id, v) -> wal.add(new long[] {id, v}));
    assertThat(r.droppedBytes()).isZero();
    assertThat(wal).containsExactly(new long[] {10, 100}, new long[] {11, -2}, new long[] {12, 120}, new long[] {13, 130},
        new long[] {14, -2});
    assertThat(Manifest.read(fs, dir)).isEqualTo(new Manifest(4, 3, List.of(new Manifest.TableRef(2, 300))));
  }

  @Test
  void newerVersionIsRejectedAsTooNewNotCorrupt() throws IOException {
    byte[] m = golden("MANIFEST");
    ByteBuffer b = ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(FileHeader.VERSION_OFFSET, 2);
    b.putInt(FileHeader.CRC_OFFSET, Checksums.crc32c(b, 0, FileHeader.CRC_OFFSET));
    Files.write(dir.resolve("MANIFEST"), m);
    assertThatThrownBy(() -> Manifest.read(FileSystem.real(), dir)).isInstanceOf(UnsupportedFormatException.class)
        .satisfies(e -> assertThat(((UnsupportedFormatException) e).kind()).isEqualTo(UnsupportedFormatException.Kind.TOO_NEW));
    b.putInt(FileHeader.VERSION_OFFSET, 0);
    b.putInt(FileHeader.CRC_OFFSET, Checksums.crc32c(b, 0, FileHeader.CRC_OFFSET));
    Files.write(dir.resolve("MANIFEST"), m);
    assertThatThrownBy(() -> Manifest.read(FileSystem.real(), dir)).isInstanceOf(UnsupportedFormatException.class)
        .satisfies(e -> assertThat(((UnsupportedFormatException) e).kind()).isEqualTo(UnsupportedFormatException.Kind.TOO_OLD));
  }
}
