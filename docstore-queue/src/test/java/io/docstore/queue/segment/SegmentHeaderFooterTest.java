package io.docstore.queue.segment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.io.Checksums;
import io.docstore.io.CorruptionException;
import io.docstore.io.UnsupportedFormatException;
import io.docstore.queue.format.SegmentFormat;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SegmentHeader and SegmentFooter: round trip, and every kind of bad header or footer. */
class SegmentHeaderFooterTest {

  @TempDir Path dir;

  private SegmentHeader readHeader(byte[] bytes) throws IOException {
    Path f = dir.resolve("h");
    Files.write(f, bytes);
    try (FileChannel ch = FileChannel.open(f)) {
      return SegmentHeader.read(ch, f);
    }
  }

  @Test
  void headerRoundTripsAndRejectsDamage() throws IOException {
    byte[] h = new SegmentHeader(7, 12345).encode().array();
    assertThat(h).hasSize(SegmentFormat.HEADER_LENGTH);
    assertThat(readHeader(h)).isEqualTo(new SegmentHeader(7, 12345));
    assertThatThrownBy(() -> readHeader(new byte[10]))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("shorter");
    assertThatThrownBy(() -> readHeader(new byte[SegmentFormat.HEADER_LENGTH]))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("bad magic");
    byte[] name = h.clone();
    name[SegmentFormat.NAME] = 'X';
    assertThatThrownBy(() -> readHeader(name)).hasMessageContaining("format name");
    byte[] flipped = h.clone();
    flipped[SegmentFormat.SEGMENT_NUMBER + 7] ^= 1;
    assertThatThrownBy(() -> readHeader(flipped)).hasMessageContaining("checksum mismatch");
    for (int v : new int[] {0, SegmentFormat.VERSION + 1}) {
      ByteBuffer b = ByteBuffer.wrap(h.clone());
      b.putInt(SegmentFormat.HEADER_VERSION, v);
      b.putInt(SegmentFormat.HEADER_CRC, Checksums.crc32c(b, 0, SegmentFormat.HEADER_CRC));
      assertThatThrownBy(() -> readHeader(b.array()))
          .isInstanceOfSatisfying(
              UnsupportedFormatException.class,
              e ->
                  assertThat(e.kind())
                      .isEqualTo(
                          v == 0
                              ? UnsupportedFormatException.Kind.TOO_OLD
                              : UnsupportedFormatException.Kind.TOO_NEW));
    }
  }

  @Test
  void footerRoundTripsAndRejectsDamage() throws IOException {
    SegmentFooter f = new SegmentFooter(10, 5, 14, 2, 1000, 0x1234);
    ByteBuffer enc = f.encode();
    assertThat(SegmentFooter.parse(enc, dir, 1000)).isEqualTo(f);
    assertThatThrownBy(() -> SegmentFooter.parse(enc, dir, 999))
        .hasMessageContaining("inconsistent");
    byte[] flipped = enc.array().clone();
    flipped[SegmentFormat.LAST_SEQUENCE] ^= 1;
    assertThatThrownBy(() -> SegmentFooter.parse(ByteBuffer.wrap(flipped), dir, 1000))
        .hasMessageContaining("checksum mismatch");
    assertThatThrownBy(
            () -> SegmentFooter.parse(ByteBuffer.allocate(SegmentFormat.FOOTER_LENGTH), dir, 1000))
        .hasMessageContaining("no footer");
    assertThat(SegmentFooter.hasMagic(enc, 0)).isTrue();
  }
}
