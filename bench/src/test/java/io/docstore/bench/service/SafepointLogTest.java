package io.docstore.bench.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SafepointLogTest {

  // As JDK 17 writes them with -Xlog:safepoint=info:file=F:uptime,timemillis (decorations in the
  // JVM's order).
  private static final List<String> LOG =
      List.of(
          "[1.143s][1795635195728ms] Safepoint \"Cleanup\", Time since last: 1064453431 ns, Reaching safepoint: 2103 ns,"
              + " Cleanup: 271884 ns, At safepoint: 20560 ns, Total: 294547 ns",
          "[1.324s][1795635195909ms] Safepoint \"G1CollectForAllocation\", Time since last: 106150682 ns, Reaching"
              + " safepoint: 3685 ns, Cleanup: 22153 ns, At safepoint: 74314470 ns, Total: 74340308 ns",
          "some other line without the pattern",
          "[1.498s][1795635196083ms] Safepoint \"G1CollectForAllocation\", Time since last: 162782993 ns, Reaching"
              + " safepoint: 3024 ns, Cleanup: 37166 ns, At safepoint: 11614661 ns, Total: 11654851 ns",
          "[2.028s][1795635196612ms] Safepoint \"G1PauseRemark\", Time since last: 521670682 ns, Reaching safepoint:"
              + " 4686 ns, Cleanup: 77686 ns, At safepoint: 7434482 ns, Total: 7516854 ns",
          "[2.030s] Safepoint \"Cleanup\", Time since last: 1 ns, Reaching safepoint: 1 ns, At safepoint: 1 ns, Total: 5 ns");

  @Test
  void parsesTimeOperationAndTotal() {
    List<SafepointLog.Pause> p = SafepointLog.parse(LOG);
    assertThat(p).hasSize(4); // the last line has no wall-clock time and is skipped
    assertThat(p.get(1))
        .isEqualTo(new SafepointLog.Pause(1795635195909L, "G1CollectForAllocation", 74340308L));
    assertThat(p.get(3).operation()).isEqualTo("G1PauseRemark");
  }

  @Test
  void summarisesOnlyThePausesInsideTheWindow() {
    List<SafepointLog.Pause> p = SafepointLog.parse(LOG);
    SafepointLog.Summary s =
        SafepointLog.window(p, 1795635195909L, 1795635196612L); // bounds included
    assertThat(s.count()).isEqualTo(3);
    assertThat(s.p50Ms()).isEqualTo(11.654851);
    assertThat(s.p99Ms()).isEqualTo(74.340308);
    assertThat(s.maxMs()).isEqualTo(74.340308);
    assertThat(s.maxOperation()).isEqualTo("G1CollectForAllocation");
    assertThat(s.line())
        .isEqualTo(
            "pauses from=1795635195909 to=1795635196612 count=3 p50_ms=11.655 p99_ms=74.340"
                + " max_ms=74.340 total_ms=93.512 max_op=G1CollectForAllocation");
  }

  @Test
  void anEmptyWindowHasNoPercentiles() {
    SafepointLog.Summary s = SafepointLog.window(SafepointLog.parse(LOG), 0, 1000);
    assertThat(s.count()).isZero();
    assertThat(s.line())
        .isEqualTo(
            "pauses from=0 to=1000 count=0 p50_ms=- p99_ms=- max_ms=- total_ms=0.000 max_op=-");
  }

  @Test
  void nearestRankPercentiles() {
    long[] v = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    assertThat(SafepointLog.percentile(v, 50)).isEqualTo(5);
    assertThat(SafepointLog.percentile(v, 99)).isEqualTo(10);
    assertThat(SafepointLog.percentile(new long[] {7}, 99.9)).isEqualTo(7);
  }
}
