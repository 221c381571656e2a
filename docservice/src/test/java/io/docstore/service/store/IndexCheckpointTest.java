package io.docstore.service.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.io.CorruptionException;
import io.docstore.io.FileSystem;
import io.docstore.io.UnsupportedFormatException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IndexCheckpointTest {

  @TempDir Path dir;

  private final FileSystem fs = FileSystem.real();

  @Test
  void absentMeansNothingIndexedAndPublishReplaces() throws IOException {
    assertThat(IndexCheckpoint.read(fs, dir)).isZero();
    IndexCheckpoint.publish(fs, dir, 41, 1000);
    IndexCheckpoint.publish(fs, dir, 42, 2000);
    assertThat(IndexCheckpoint.read(fs, dir)).isEqualTo(42);
    assertThat(Files.size(dir.resolve(CheckpointFormat.FILE_NAME)))
        .isEqualTo(CheckpointFormat.LENGTH);
    try (var s = Files.list(dir)) {
      assertThat(s.count()).as("no temp files left").isEqualTo(1);
    }
  }

  /**
   * Version 1 is frozen: the golden file (sequence 123456789, written at 1700000000000) must keep
   * reading.
   */
  @Test
  void goldenVersion1() throws IOException {
    byte[] golden;
    try (InputStream in = getClass().getResourceAsStream("/golden/index.checkpoint.v1")) {
      golden = in.readAllBytes();
    }
    assertThat(golden).isEqualTo(IndexCheckpoint.encode(123_456_789L, 1_700_000_000_000L));
    assertThat(IndexCheckpoint.decode(Path.of("golden"), golden)).isEqualTo(123_456_789L);
  }

  @Test
  void everyKindOfDamageIsDetected() throws IOException {
    byte[] good = IndexCheckpoint.encode(77, 5);
    Path f = dir.resolve(CheckpointFormat.FILE_NAME);
    for (int i = 0; i < good.length; i++) {
      for (int bit = 0; bit < 8; bit++) {
        byte[] bad = good.clone();
        bad[i] ^= (byte) (1 << bit);
        Files.write(f, bad);
        assertThatThrownBy(() -> IndexCheckpoint.read(fs, dir))
            .as("byte %d bit %d", i, bit)
            .isInstanceOf(CorruptionException.class)
            .hasMessageContaining(CheckpointFormat.FILE_NAME);
      }
    }
    Files.write(f, java.util.Arrays.copyOf(good, good.length - 1));
    assertThatThrownBy(() -> IndexCheckpoint.read(fs, dir))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("bytes");
    Files.write(f, new byte[good.length]);
    assertThatThrownBy(() -> IndexCheckpoint.read(fs, dir)).isInstanceOf(CorruptionException.class);
    Files.write(f, java.util.Arrays.copyOf(good, good.length + 3));
    assertThatThrownBy(() -> IndexCheckpoint.read(fs, dir)).isInstanceOf(CorruptionException.class);
  }

  @Test
  void newerVersionIsUnsupportedNotCorrupt() throws IOException {
    byte[] b = IndexCheckpoint.encode(1, 1);
    b[CheckpointFormat.VERSION_OFFSET + 1] = 2;
    int crc = io.docstore.io.Checksums.crc32c(b, 0, CheckpointFormat.CRC_OFFSET);
    java.nio.ByteBuffer.wrap(b).putInt(CheckpointFormat.CRC_OFFSET, crc);
    Files.write(dir.resolve(CheckpointFormat.FILE_NAME), b);
    assertThatThrownBy(() -> IndexCheckpoint.read(fs, dir))
        .isInstanceOf(UnsupportedFormatException.class)
        .hasMessageContaining("too new");
  }
}
