package io.docstore.bench.workloads;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** The reader's p99 per 1-second window and how it reaches the RESULT line. */
class ReadWhileWritingWindowsTest {

  private static final long S = 1_000_000_000L;

  @Test
  void oneP99PerSecondByWhenTheReadStarted() {
    ReadWhileWritingWorkload.Windows w = new ReadWhileWritingWorkload.Windows();
    long t = 5 * S;
    for (int i = 0; i < 1000; i++) {
      w.record(t + i * (S / 1000), i < 990 ? 1_000 : 50_000); // second 1: 1% at 50 us
    }
    for (int i = 0; i < 1000; i++) {
      w.record(t + S + i * (S / 1000), 2_000); // second 2: all 2 us
    }
    w.record(
        t + 4 * S,
        7_000); // seconds 3 and 4 had no read; second 5 has one read and is cut short: left out
    List<Double> p99s = w.finish();
    assertThat(p99s).hasSize(4);
    assertThat(p99s.get(0)).isBetween(0.99, 1.01);
    assertThat(p99s.get(1)).isBetween(1.99, 2.01);
    assertThat(p99s.subList(2, 4)).containsExactly(0.0, 0.0);

    ReadWhileWritingWorkload.Windows longTail = new ReadWhileWritingWorkload.Windows();
    longTail.record(0, 3_000);
    longTail.record(S * 6 / 10, 9_000); // the last window ran 0.6 s: kept
    assertThat(longTail.finish()).hasSize(1).allSatisfy(v -> assertThat(v).isBetween(8.99, 9.01));
  }

  @Test
  void theP99sAreOneFieldOfTheResultLine() {
    Histogram h = PhaseResult.newHistogram();
    h.recordValue(1000);
    PhaseResult r =
        new PhaseResult("read-under-writes", 1, S, S, h, 0, 0, ProcSelf.Io.NONE)
            .withP99PerSecond(List.of(1.234, 56.0));
    assertThat(r.fields()).containsEntry("p99_us_per_s", "1.23,56.0");
    assertThat(new PhaseResult("read", 1, S, S, h, 0, 0, ProcSelf.Io.NONE).fields())
        .doesNotContainKey("p99_us_per_s");
  }
}
