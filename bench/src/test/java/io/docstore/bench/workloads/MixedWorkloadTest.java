package io.docstore.bench.workloads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.bench.data.JobDocGenerator;
import io.docstore.bench.engines.EngineSettings;
import io.docstore.bench.engines.Engines;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MixedWorkloadTest {

  @TempDir Path dir;

  @Test
  void aReadIsRightWhenItIsSomeWrittenVersionOfThatDocument() {
    byte[] v3 = JobDocGenerator.document(42, 3);
    assertThat(MixedWorkload.isWrittenVersion(v3, 42, 3)).isTrue();
    assertThat(MixedWorkload.isWrittenVersion(v3, 42, 7)).as("an older version").isTrue();
    assertThat(MixedWorkload.isWrittenVersion(JobDocGenerator.document(42, 0), 42, 7))
        .as("the load's")
        .isTrue();
    assertThat(MixedWorkload.isWrittenVersion(v3, 42, 2)).as("a version not yet written").isFalse();
    assertThat(MixedWorkload.isWrittenVersion(v3, 43, 9)).as("another document").isFalse();
    byte[] torn = v3.clone();
    torn[torn.length / 2] ^= 1;
    assertThat(MixedWorkload.isWrittenVersion(torn, 42, 9)).as("a damaged copy").isFalse();
  }

  @Test
  void rejectsBadSettings() {
    assertThatThrownBy(() -> new MixedWorkload(0, 1, List.of(5), s -> {}))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new MixedWorkload(2, 1, List.of(101), s -> {}))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new MixedWorkload(2, 1, List.of(), s -> {}))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /** In this JVM, on docstore: phases, counts and the write share of each run. */
  @Test
  void loadsThenRunsEachMixOnTwoThreads() throws Exception {
    WorkloadParams p = new WorkloadParams(400, 1, 50, 7, 1, 1, 1);
    List<String> notes = new ArrayList<>();
    EngineSettings s = new EngineSettings(dir, 8 << 20, 1 << 20, 8192);
    WorkloadContext ctx = new WorkloadContext(() -> Engines.open("docstore", s), p, () -> "");
    List<PhaseResult> phases = new MixedWorkload(2, 1, List.of(5, 50), notes::add).run(ctx);
    Map<String, PhaseResult> byName =
        phases.stream().collect(Collectors.toMap(PhaseResult::phase, Function.identity()));
    assertThat(phases)
        .extracting(PhaseResult::phase)
        .containsExactly("load", "w5", "w5-read", "w5-write", "w50", "w50-read", "w50-write");
    assertThat(byName.get("load").ops()).isEqualTo(400);
    for (int w : new int[] {5, 50}) {
      PhaseResult all = byName.get("w" + w);
      PhaseResult reads = byName.get("w" + w + "-read");
      PhaseResult writes = byName.get("w" + w + "-write");
      assertThat(all.ops()).isEqualTo(reads.ops() + writes.ops()).isGreaterThan(200);
      assertThat(all.latency().getTotalCount()).isEqualTo(all.ops());
      assertThat(writes.latency().getTotalCount()).isEqualTo(writes.ops());
      assertThat(all.misses() + all.wrong()).isZero();
      double share = writes.ops() / (double) all.ops();
      double sd = Math.sqrt(w / 100.0 * (1 - w / 100.0) / all.ops());
      assertThat(Math.abs(share - w / 100.0)).as("write share of w%d", w).isLessThan(5 * sd + 0.01);
      assertThat(all.opsPerSecond())
          .isEqualTo(
              reads.opsPerSecond() + writes.opsPerSecond(),
              org.assertj.core.data.Offset.offset(1.0));
    }
    assertThat(notes).hasSize(2).allMatch(n -> n.contains("background work"));
  }
}
