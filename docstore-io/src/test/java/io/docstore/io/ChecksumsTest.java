package io.docstore.io;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class ChecksumsTest {

  @Test
  void zeroesNeverChecksumToZero() {
    for (int n = 0; n <= 4096; n += 1 + n / 3) {
      assertThat(Checksums.crc32c(new byte[n], 0, n)).as("length %d", n).isNotZero();
    }
  }

  @Test
  void allOverloadsAgreeAndDetectOneBitFlips() {
    byte[] data = "docstore queue block".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    int c = Checksums.crc32c(data, 0, data.length);
    assertThat(Checksums.crc32c(ByteBuffer.wrap(data))).isEqualTo(c);
    ByteBuffer direct = ByteBuffer.allocateDirect(data.length + 4);
    direct.position(4);
    direct.put(data);
    assertThat(Checksums.crc32c(direct, 4, data.length)).isEqualTo(c);
    for (int bit = 0; bit < data.length * 8; bit++) {
      data[bit / 8] ^= (byte) (1 << (bit % 8));
      assertThat(Checksums.crc32c(data, 0, data.length)).isNotEqualTo(c);
      data[bit / 8] ^= (byte) (1 << (bit % 8));
    }
  }
}
