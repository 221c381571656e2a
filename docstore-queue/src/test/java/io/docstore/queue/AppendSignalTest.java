package io.docstore.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class AppendSignalTest {

  @Test
  void timesOutWithoutSignalAndWakesOnSignal() throws Exception {
    AppendSignal s = new AppendSignal();
    long v = s.version();
    assertThat(s.await(v, TimeUnit.MILLISECONDS.toNanos(5))).isLessThanOrEqualTo(0);
    s.signal();
    assertThat(s.version()).isEqualTo(v + 1);
    assertThat(s.await(v, TimeUnit.SECONDS.toNanos(10))).isPositive();
    long seen = s.version();
    Thread t = new Thread(s::signal);
    t.start();
    assertThat(s.await(seen, TimeUnit.SECONDS.toNanos(30))).isPositive();
    t.join();
  }
}
