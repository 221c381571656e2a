package io.docstore.queue.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;

class AddressTest {

  @Test
  void roundTripsAndStaysPositive() {
    Random rnd = new Random(1);
    for (int i = 0; i < 10_000; i++) {
      long seg = 1 + (long) rnd.nextInt((int) Address.MAX_SEGMENT);
      long off = rnd.nextLong() & Address.MAX_SEGMENT_BYTES;
      int idx = rnd.nextInt(Address.MAX_RECORDS_PER_BLOCK);
      long a = Address.of(seg, off, idx);
      assertThat(a).isPositive();
      assertThat(Address.segment(a)).isEqualTo(seg);
      assertThat(Address.blockOffset(a)).isEqualTo(off);
      assertThat(Address.index(a)).isEqualTo(idx);
      assertThat(Address.blockKey(a)).isEqualTo(Address.of(seg, off, 0));
    }
    long max =
        Address.of(
            Address.MAX_SEGMENT, Address.MAX_SEGMENT_BYTES, Address.MAX_RECORDS_PER_BLOCK - 1);
    assertThat(max).isEqualTo(Long.MAX_VALUE);
    assertThat(Address.of(1, 0, 0)).isEqualTo(1L << 43);
    assertThat(Address.toString(Address.of(3, 44, 2))).isEqualTo("3/44/2");
  }

  @Test
  void rejectsOutOfRange() {
    assertThatThrownBy(() -> Address.of(0, 44, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Address.of(Address.MAX_SEGMENT + 1, 44, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Address.of(1, Address.MAX_SEGMENT_BYTES + 1, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Address.of(1, 44, Address.MAX_RECORDS_PER_BLOCK))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Address.of(1, -1, 0)).isInstanceOf(IllegalArgumentException.class);
  }
}
