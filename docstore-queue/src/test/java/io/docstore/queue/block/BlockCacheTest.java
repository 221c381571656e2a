package io.docstore.queue.block;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BlockCacheTest {

  private static DecodedBlock block(int rawLength, long firstSequence) {
    DecodedBlock b = new DecodedBlock();
    b.raw = new byte[rawLength];
    b.rawLength = rawLength;
    b.count = 1;
    b.firstSequence = firstSequence;
    return b;
  }

  private static Long firstSequence(BlockCache c, long key) {
    return c.read(key, (slab, off, len, arg) -> BlockCache.firstSequence(slab, off), 0);
  }

  @Test
  void holdsBlocksUpToTheBlockSizeInSlots() {
    // A quarter of the budget holds blocks (four slots here), the rest records.
    BlockCache c = new BlockCache(16 * (BlockCache.HEADER + 512), 512);
    c.put(1, block(400, 11));
    c.put(2, block(512, 12));
    c.put(3, block(513, 13)); // an oversized single-record block: not cached
    assertThat(firstSequence(c, 1)).isEqualTo(11);
    assertThat(firstSequence(c, 2)).isEqualTo(12);
    assertThat(firstSequence(c, 3)).isNull();
    assertThat(c.bytes()).isEqualTo(2L * (BlockCache.HEADER + 512));
  }

  @Test
  void storesCopies() {
    BlockCache c = new BlockCache(1 << 16, 512);
    DecodedBlock b = block(10, 1);
    b.raw[0] = 5;
    c.put(1, b);
    b.raw[0] = 7;
    byte first = c.read(1, (slab, off, len, arg) -> slab.get(off + BlockCache.HEADER), 0);
    assertThat(first).isEqualTo((byte) 5);
  }
}
