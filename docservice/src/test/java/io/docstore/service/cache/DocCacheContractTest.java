package io.docstore.service.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.TestSupport;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@link DocCache} contract every implementation passes: fill never overwrites, set and
 * setDeleted do, tombstones stay, batched gets agree with single gets. Subclasses supply the cache.
 */
abstract class DocCacheContractTest {

  protected DocCache cache;

  /** A fresh, empty cache with room for everything a test writes. */
  protected abstract DocCache newCache() throws Exception;

  @BeforeEach
  void open() throws Exception {
    cache = newCache();
  }

  @AfterEach
  void closeCache() {
    cache.close();
  }

  static byte[] body(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void missThenFillThenHit() {
    assertThat(cache.get(7)).isNull();
    cache.fill(7, 3, body("seven"));
    CachedDoc doc = cache.get(7);
    assertThat(doc.sequence()).isEqualTo(3);
    assertThat(doc.body()).isEqualTo(body("seven"));
    assertThat(doc.deleted()).isFalse();
  }

  @Test
  void theExpiryIsKeptWithTheEntryAndAnExpiredEntryIsNeverCopiedOut() {
    cache.set(1, 4, body("expires later"), 4_000_000_000_000L);
    cache.fill(2, 5, body("expired"), 1_000L);
    cache.set(3, 6, body("never"));
    CachedDoc later = cache.get(1);
    assertThat(later.expiresAtMillis()).isEqualTo(4_000_000_000_000L);
    assertThat(later.readableAt(System.currentTimeMillis())).isTrue();
    CachedDoc expired = cache.getAll(new long[] {2})[0];
    assertThat(expired.expiresAtMillis()).isEqualTo(1_000L);
    assertThat(expired.readableAt(System.currentTimeMillis())).isFalse();
    assertThat(cache.get(3).expiresAtMillis()).isZero();
    io.netty.buffer.ByteBuf out = io.netty.buffer.Unpooled.buffer();
    assertThat(cache.copyIfLocal(2, out)).isEqualTo(-1);
    assertThat(out.readableBytes()).isZero();
    if (cache.local()) {
      assertThat(cache.copyIfLocal(1, out)).isEqualTo(4);
    }
    out.release();
  }

  @Test
  void lateFillNeverOverwritesNewerSet() {
    cache.set(1, 10, body("new"));
    cache.fill(1, 5, body("old, read before the update"));
    assertThat(cache.get(1).sequence()).isEqualTo(10);
    assertThat(cache.get(1).body()).isEqualTo(body("new"));
  }

  @Test
  void fillNeverOverwritesAnEarlierFill() {
    cache.fill(1, 5, body("first"));
    cache.fill(1, 5, body("second"));
    assertThat(cache.get(1).body()).isEqualTo(body("first"));
  }

  @Test
  void setOverwritesAFill() {
    cache.fill(1, 5, body("old"));
    cache.set(1, 6, body("new"));
    assertThat(cache.get(1))
        .satisfies(
            d -> {
              assertThat(d.sequence()).isEqualTo(6);
              assertThat(d.body()).isEqualTo(body("new"));
            });
  }

  @Test
  void tombstoneBlocksResurrectionByLateFill() {
    cache.set(2, 4, body("doc"));
    cache.setDeleted(2, 5);
    cache.fill(2, 4, body("doc"));
    CachedDoc doc = cache.get(2);
    assertThat(doc.deleted()).isTrue();
    assertThat(doc.sequence()).isEqualTo(5);
    cache.set(2, 6, body("again"));
    assertThat(cache.get(2).body()).isEqualTo(body("again"));
  }

  @Test
  void emptyBodyIsNotATombstone() {
    cache.set(3, 1, new byte[0]);
    assertThat(cache.get(3).deleted()).isFalse();
    assertThat(cache.get(3).body()).isEmpty();
  }

  @Test
  void getAllMatchesSingleGets() {
    cache.set(1, 1, body("a"));
    cache.setDeleted(2, 2);
    cache.fill(4, 3, body("d"));
    CachedDoc[] docs = cache.getAll(new long[] {1, 2, 3, 4, 1});
    assertThat(docs).hasSize(5);
    assertThat(docs[0].body()).isEqualTo(body("a"));
    assertThat(docs[1].deleted()).isTrue();
    assertThat(docs[2]).isNull();
    assertThat(docs[3].body()).isEqualTo(body("d"));
    assertThat(docs[4].body()).isEqualTo(body("a"));
    assertThat(cache.getAll(new long[0])).isEmpty();
  }

  @Test
  void countsHitsMissesFillsAndSets() {
    cache.get(1);
    cache.fill(1, 1, body("x"));
    cache.get(1);
    cache.set(1, 2, body("y"));
    CacheStats s = cache.stats();
    assertThat(s.hits()).isEqualTo(1);
    assertThat(s.misses()).isEqualTo(1);
    assertThat(s.fills()).isEqualTo(1);
    assertThat(s.sets()).isEqualTo(1);
    assertThat(s.hitRatio()).isEqualTo(0.5);
  }

  @Test
  void randomizedAgainstModel() {
    long seed = TestSupport.seed("DocCacheContract");
    Random rnd = new Random(seed);
    // Model: the ingest path's newest write per id; fills only land on absent keys.
    Map<Long, CachedDoc> model = new HashMap<>();
    long seq = 0;
    for (int i = 0; i < 2_000; i++) {
      long id = rnd.nextInt(50) + (rnd.nextBoolean() ? 0 : Long.MAX_VALUE - 50);
      int op = rnd.nextInt(4);
      if (op == 0) {
        byte[] b = body("v" + (++seq));
        cache.set(id, seq, b);
        model.put(id, new CachedDoc(seq, b));
      } else if (op == 1) {
        cache.setDeleted(id, ++seq);
        model.put(id, new CachedDoc(seq, null));
      } else if (op == 2) {
        byte[] b = body("fill" + seq);
        cache.fill(id, seq, b);
        model.putIfAbsent(id, new CachedDoc(seq, b));
      } else {
        CachedDoc want = model.get(id);
        CachedDoc got = cache.get(id);
        if (want == null) {
          assertThat(got).as("seed %d step %d id %d", seed, i, id).isNull();
        } else {
          assertThat(got).as("seed %d step %d id %d", seed, i, id).isNotNull();
          assertThat(got.sequence()).isEqualTo(want.sequence());
          assertThat(got.body()).isEqualTo(want.body());
        }
      }
    }
  }
}
