package io.docstore.io;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** When ColdReads sends reads away from the mapping, and for how long. */
class ColdReadsTest {

  private static int mappedOf(ColdReads c, int reads) {
    int mapped = 0;
    for (int i = 0; i < reads; i++) {
      if (c.useMapping()) {
        mapped++;
        c.finished(c.started());
      }
    }
    return mapped;
  }

  @Test
  void fastReadsStayOnTheMapping() {
    ColdReads c = new ColdReads(Long.MAX_VALUE, 10, 1, new AtomicLong()::incrementAndGet);
    assertThat(mappedOf(c, 1000)).isEqualTo(1000);
    assertThat(c.coldReads()).isZero();
  }

  @Test
  void aSlowReadThatFaultedSendsTheNextReadsAwayThenTheMappingIsTriedAgain() {
    AtomicLong faults = new AtomicLong();
    ColdReads c = new ColdReads(-1, 10, 1, faults::incrementAndGet);
    // Read 1 takes the thread's count; read 2 is cold; reads 3-12 go away; read 13 probes (cold
    // again).
    assertThat(mappedOf(c, 13)).isEqualTo(3);
    assertThat(c.coldReads()).isEqualTo(2);
  }

  @Test
  void warmUntilATimedReadWaitsForTheDiskThenAgainOnceTheReadsSentAwayAreDone() {
    AtomicLong faults = new AtomicLong();
    ColdReads c = new ColdReads(-1, 3, 1, faults::incrementAndGet);
    assertThat(c.warm()).isTrue();
    mappedOf(c, 2); // read 1 takes the thread's count, read 2 is cold
    assertThat(c.warm()).isFalse();
    for (int i = 0; i < 3; i++) {
      assertThat(c.useMapping()).isFalse();
    }
    assertThat(c.warm()).isTrue();
  }

  @Test
  void aSlowReadWithoutAMajorFaultIsNotCold() {
    ColdReads c = new ColdReads(-1, 10, 1, () -> 5);
    assertThat(mappedOf(c, 100)).isEqualTo(100);
    assertThat(c.coldReads()).isZero();
  }

  @Test
  void withoutAFaultCountEverySlowReadIsCold() {
    ColdReads c = new ColdReads(-1, 10, 1, () -> -1);
    assertThat(mappedOf(c, 22)).isEqualTo(2);
    assertThat(c.coldReads()).isEqualTo(2);
  }

  /**
   * Timing one read in eight still finds a cold cache within a few reads (here within 200: the
   * chance that none of 200 reads is timed is (7/8)^200, about 2.5e-12), and fast reads stay
   * mapped.
   */
  @Test
  void samplingOneReadInEightStillFindsAColdCacheWithinAFewReads() {
    ColdReads warm = new ColdReads(Long.MAX_VALUE, 10, 8, new AtomicLong()::incrementAndGet);
    assertThat(mappedOf(warm, 1000)).isEqualTo(1000);
    AtomicLong faults = new AtomicLong();
    ColdReads cold = new ColdReads(-1, 1_000_000, 8, faults::incrementAndGet);
    int mapped = mappedOf(cold, 400);
    assertThat(cold.coldReads()).isEqualTo(1);
    assertThat(mapped).isBetween(2, 200);
    // Only timed reads ask for the fault count: one took the thread's count, the next was cold.
    assertThat(faults.get()).isEqualTo(2);
  }
}
