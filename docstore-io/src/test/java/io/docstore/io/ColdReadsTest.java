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
    ColdReads c = new ColdReads(Long.MAX_VALUE, 10, new AtomicLong()::incrementAndGet);
    assertThat(mappedOf(c, 1000)).isEqualTo(1000);
    assertThat(c.coldReads()).isZero();
  }

  @Test
  void aSlowReadThatFaultedSendsTheNextReadsAwayThenTheMappingIsTriedAgain() {
    AtomicLong faults = new AtomicLong();
    ColdReads c = new ColdReads(-1, 10, faults::incrementAndGet);
    // Read 1 takes the thread's count; read 2 is cold; reads 3-12 go away; read 13 probes (cold again).
    assertThat(mappedOf(c, 13)).isEqualTo(3);
    assertThat(c.coldReads()).isEqualTo(2);
  }

  @Test
  void aSlowReadWithoutAMajorFaultIsNotCold() {
    ColdReads c = new ColdReads(-1, 10, () -> 5);
    assertThat(mappedOf(c, 100)).isEqualTo(100);
    assertThat(c.coldReads()).isZero();
  }

  @Test
  void withoutAFaultCountEverySlowReadIsCold() {
    ColdReads c = new ColdReads(-1, 10, () -> -1);
    assertThat(mappedOf(c, 22)).isEqualTo(2);
    assertThat(c.coldReads()).isEqualTo(2);
  }
}
