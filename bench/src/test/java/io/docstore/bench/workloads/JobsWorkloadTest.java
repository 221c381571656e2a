package io.docstore.bench.workloads;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.BitSet;
import org.junit.jupiter.api.Test;

class JobsWorkloadTest {

  @Test
  void strideMakesRankToIdABijection() {
    for (long n : new long[] {2, 10, 1000, 4096, 99_991}) {
      long stride = JobsWorkload.coprimeStride(n);
      BitSet seen = new BitSet();
      for (long r = 0; r < n; r++) {
        seen.set((int) Math.floorMod(r * stride + 7, n));
      }
      assertThat(seen.cardinality()).as("n=%d", n).isEqualTo((int) n);
    }
  }

  @Test
  void theOlderHalfOfTheJobsEndsAtVersionOne() {
    assertThat(JobsWorkload.finalVersion(0, 10)).isEqualTo(1);
    assertThat(JobsWorkload.finalVersion(4, 10)).isEqualTo(1);
    assertThat(JobsWorkload.finalVersion(5, 10)).isZero();
    assertThat(JobsWorkload.finalVersion(4, 9)).isZero();
  }

  @Test
  void readWhileWritingRecognisesTheDocumentsId() {
    byte[] doc = io.docstore.bench.data.JobDocGenerator.document(123, 4);
    assertThat(ReadWhileWritingWorkload.hasId(doc, 123)).isTrue();
    assertThat(ReadWhileWritingWorkload.hasId(doc, 12)).isFalse();
    assertThat(ReadWhileWritingWorkload.hasId(new byte[3], 1)).isFalse();
  }
}
