package io.docstore.queue.block;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BlockCacheTest {

  private static DecodedBlock block(int rawLength) {
    DecodedBlock b = new DecodedBlock();
    b.raw = new byte[rawLength];
    b.rawLength = rawLength;
    return b;
  }

  @Test
  void evictsLeastRecentlyUsedByBytes() {
    BlockCache c = new BlockCache(1000);
    c.put(1, block(400));
    c.put(2, block(400));
    assertThat(c.get(1)).isNotNull();
    c.put(3, block(400));
    assertThat(c.get(2)).isNull();
    assertThat(c.get(1)).isNotNull();
    assertThat(c.get(3)).isNotNull();
    assertThat(c.bytes()).isEqualTo(800);
    c.put(4, block(2000));
    assertThat(c.get(4)).isNull();
  }

  @Test
  void storesCopies() {
    BlockCache c = new BlockCache(1000);
    DecodedBlock b = block(10);
    c.put(1, b);
    b.raw[0] = 7;
    assertThat(c.get(1).raw[0]).isZero();
  }
}
