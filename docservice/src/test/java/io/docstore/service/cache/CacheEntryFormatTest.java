package io.docstore.service.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBufUtil;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Freezes version 1 of the memcached value format (docs/formats/cache-entry.md). */
class CacheEntryFormatTest {

  static final String EXAMPLE_HEX =
      "d5"
          + "02"
          + "00"
          + "0000000000000001"
          + "0000000000000005"
          + "0000018bcfe56800"
          + "00000002"
          + "6869"
          + "6c4e4016";

  @Test
  void exampleMatchesTheSpec() {
    byte[] v =
        CacheEntryFormat.encode(1, 5, "hi".getBytes(StandardCharsets.UTF_8), 1_700_000_000_000L);
    String hex = ByteBufUtil.hexDump(v);
    assertThat(hex).isEqualTo(EXAMPLE_HEX);
  }

  @Test
  void roundTripsVersionsAndTombstones() {
    CachedDoc doc =
        CacheEntryFormat.decode(9, CacheEntryFormat.encode(9, 77, new byte[] {1, 2, 3}));
    assertThat(doc.sequence()).isEqualTo(77);
    assertThat(doc.body()).containsExactly(1, 2, 3);
    assertThat(doc.expiresAtMillis()).isZero();
    assertThat(
            CacheEntryFormat.decode(9, CacheEntryFormat.encode(9, 80, new byte[] {4}, 1234))
                .expiresAtMillis())
        .isEqualTo(1234);
    CachedDoc tomb = CacheEntryFormat.decode(9, CacheEntryFormat.encode(9, 78, null));
    assertThat(tomb.deleted()).isTrue();
    assertThat(tomb.sequence()).isEqualTo(78);
    assertThat(CacheEntryFormat.decode(9, CacheEntryFormat.encode(9, 79, new byte[0])).deleted())
        .isFalse();
  }

  @Test
  void everySingleBitFlipAndEveryTruncationIsRejected() {
    byte[] good =
        CacheEntryFormat.encode(42, 7, "a small document".getBytes(StandardCharsets.UTF_8));
    for (int i = 0; i < good.length; i++) {
      for (int bit = 0; bit < 8; bit++) {
        byte[] bad = good.clone();
        bad[i] ^= (byte) (1 << bit);
        assertThat(CacheEntryFormat.decode(42, bad)).as("flip byte %d bit %d", i, bit).isNull();
      }
    }
    for (int len = 0; len < good.length; len++) {
      assertThat(CacheEntryFormat.decode(42, java.util.Arrays.copyOf(good, len))).isNull();
    }
    assertThat(CacheEntryFormat.decode(42, new byte[good.length])).as("all zeros").isNull();
    assertThat(CacheEntryFormat.decode(43, good)).as("another ID's value").isNull();
  }

  @Test
  void tombstoneWithABodyIsRejected() {
    byte[] v = CacheEntryFormat.encode(1, 1, new byte[] {5});
    v[CacheEntryFormat.FLAGS_OFFSET] = CacheEntryFormat.FLAG_TOMBSTONE;
    // Re-seal so only the flag/body disagreement is wrong.
    int crc = io.docstore.io.Checksums.crc32c(v, 0, v.length - 4);
    java.nio.ByteBuffer.wrap(v).putInt(v.length - 4, crc);
    assertThat(CacheEntryFormat.decode(1, v)).isNull();
  }
}
