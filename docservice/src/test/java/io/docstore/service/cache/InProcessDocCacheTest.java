package io.docstore.service.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class InProcessDocCacheTest extends DocCacheContractTest {

  @Override
  protected DocCache newCache() {
    return new InProcessDocCache(64L << 20);
  }

  @Test
  void olderIngestWriteNeverReplacesNewer() {
    cache.set(1, 9, body("nine"));
    cache.set(1, 8, body("eight, finished late"));
    cache.setDeleted(1, 7);
    assertThat(cache.get(1).sequence()).isEqualTo(9);
  }

  @Test
  void staysWithinItsByteBudget() {
    long budget = 256 * 1024;
    try (InProcessDocCache small = new InProcessDocCache(budget)) {
      byte[] body = new byte[1000];
      for (long id = 0; id < 2_000; id++) {
        small.set(id, id + 1, body);
      }
      long bytes = small.stats().bytes();
      assertThat(bytes).isPositive().isLessThanOrEqualTo(budget);
      assertThat(bytes).isEqualTo(small.size() * (1000 + InProcessDocCache.ENTRY_OVERHEAD_BYTES));
      // Recently written entries survive; the oldest are gone.
      assertThat(small.get(1_999)).isNotNull();
      assertThat(small.get(0)).isNull();
    }
  }

  @Test
  void byteCountFollowsReplacementsAndRejectedWrites() {
    try (InProcessDocCache c = new InProcessDocCache(1 << 20)) {
      int w = InProcessDocCache.ENTRY_OVERHEAD_BYTES;
      c.set(1, 2, new byte[100]);
      c.set(1, 3, new byte[10]);
      c.set(1, 1, new byte[500]); // older: rejected
      c.fill(1, 1, new byte[700]); // present: rejected
      c.setDeleted(2, 5);
      c.fill(3, 1, new byte[30]);
      assertThat(c.stats().bytes()).isEqualTo((w + 10) + w + (w + 30));
      c.close();
      assertThat(c.stats().bytes()).isZero();
    }
  }

  @Test
  void rejectsNonPositiveBudget() {
    assertThatThrownBy(() -> new InProcessDocCache(0)).isInstanceOf(IllegalArgumentException.class);
  }
}
