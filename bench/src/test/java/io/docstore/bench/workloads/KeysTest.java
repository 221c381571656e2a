package io.docstore.bench.workloads;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class KeysTest {

  @Test
  void randomKeysDoNotRepeatAndDependOnTheSeed() {
    Set<Long> seen = new HashSet<>();
    for (int i = 0; i < 100_000; i++) {
      assertThat(seen.add(Keys.randomKey(1, i))).isTrue();
    }
    assertThat(Keys.randomKey(1, 5)).isNotEqualTo(Keys.randomKey(2, 5));
  }

  @Test
  void valuesAreDeterministicPerKey() {
    assertThat(Keys.valueFor(42, 96)).hasSize(96).isEqualTo(Keys.valueFor(42, 96));
    assertThat(Keys.valueFor(42, 96)).isNotEqualTo(Keys.valueFor(43, 96));
  }

  @Test
  void bytesAreBigEndian() {
    assertThat(Keys.bytes(0x0102030405060708L)).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
    assertThat(Keys.bytes(-1L)).containsOnly((byte) 0xff);
  }

  @Test
  void permutationHoldsEveryIndexOnce() {
    int[] p = Keys.permutation(10_000, 7);
    int[] sorted = p.clone();
    Arrays.sort(sorted);
    for (int i = 0; i < sorted.length; i++) {
      assertThat(sorted[i]).isEqualTo(i);
    }
    assertThat(p).isNotEqualTo(sorted).isEqualTo(Keys.permutation(10_000, 7));
  }
}
