package io.docstore.bench.workloads;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcSelfTest {

  @TempDir Path dir;

  @Test
  void countsThisProcesssReadCallsAndPeakRss() throws IOException {
    Path f = Files.write(dir.resolve("f"), new byte[4096]);
    ProcSelf.Io before = ProcSelf.io();
    for (int i = 0; i < 10; i++) {
      Files.readAllBytes(f);
    }
    ProcSelf.Io delta = ProcSelf.io().minus(before);
    assertThat(delta.readCalls()).isGreaterThanOrEqualTo(10);
    assertThat(ProcSelf.peakRssBytes()).isGreaterThan(10L << 20);
  }
}
