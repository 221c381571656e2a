package io.docstore.index.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class BackgroundPacerTest {

  private static final int CHUNK = 64 * 1024;

  @Test
  void writesBeyondTheRateAreSlowedDown() {
    // 1 MiB/s: 2 MiB after the first chunk cannot be through in less than about 2 s, however
    // loaded the machine (load only makes it slower; nothing here bounds it from above).
    BackgroundPacer pacer = new BackgroundPacer(1 << 20, () -> false);
    long start = System.nanoTime();
    for (int i = 0; i <= 32; i++) {
      pacer.written(CHUNK);
    }
    assertThat(System.nanoTime() - start).isGreaterThan(TimeUnit.MILLISECONDS.toNanos(1900));
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void urgentWorkIsNotPaced() {
    // At 1 KiB/s these 64 MiB would take 18 hours if the pacer ignored urgency.
    AtomicBoolean urgent = new AtomicBoolean(true);
    BackgroundPacer pacer = new BackgroundPacer(1024, urgent::get);
    for (int i = 0; i < 1024; i++) {
      pacer.written(CHUNK);
    }
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void zeroMeansNoLimit() {
    BackgroundPacer pacer = new BackgroundPacer(0, () -> false);
    for (int i = 0; i < 1024; i++) {
      pacer.written(CHUNK);
    }
  }
}
