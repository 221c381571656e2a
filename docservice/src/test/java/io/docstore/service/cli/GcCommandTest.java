package io.docstore.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.service.testing.DamagedStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code docstore gc} as an operator runs it on a stopped store that overwrote its documents. */
class GcCommandTest {

  @TempDir Path dir;

  private static String[] run(String... args) {
    DamagedStore.Run r = DamagedStore.run(args);
    return new String[] {Integer.toString(r.exit()), r.out(), r.err()};
  }

  private static long queueBytes(Path data) throws Exception {
    try (Stream<Path> s = Files.list(data.resolve("queue"))) {
      return s.filter(p -> p.getFileName().toString().startsWith("seg-"))
          .mapToLong(p -> p.toFile().length())
          .sum();
    }
  }

  @Test
  void gcGivesBackTheSpaceOfOverwrittenVersionsAndEveryDocumentReadsItsNewest() throws Exception {
    Path data = dir.resolve("data");
    Path conf = dir.resolve("small.conf");
    Files.writeString(
        conf,
        "docstore.queue.segment-size = 1M\n"
            + "docstore.queue.max-body = 512K\n"
            + "docstore.gc.reserve = 0\n");
    Random rnd = new Random(3);
    StringBuilder b = new StringBuilder();
    for (int round = 0; round < 4; round++) {
      for (int id = 0; id < 2000; id++) {
        StringBuilder pad = new StringBuilder();
        for (int i = 0; i < 1000; i++) {
          pad.append((char) ('a' + rnd.nextInt(26)));
        }
        b.append("{\"id\":")
            .append(id)
            .append(",\"doc\":{\"round\":")
            .append(round)
            .append(",\"pad\":\"")
            .append(pad)
            .append("\"}}\n");
      }
    }
    Path file = dir.resolve("in.ndjson");
    Files.writeString(file, b);
    String[] r =
        run("import", file.toString(), "--config", conf.toString(), "--data", data.toString());
    assertThat(r[0]).as(r[2]).isEqualTo("0");
    long before = queueBytes(data);

    r = run("gc", "--config", conf.toString(), "--data", data.toString(), "--target", "1.1");
    assertThat(r[0]).as(r[2]).isEqualTo("0");
    assertThat(r[1]).containsPattern("gc: reclaimed [1-9][0-9]* segments");
    long after = queueBytes(data);
    // Four versions of each document, three of them garbage: well over half comes back.
    assertThat(after).as("queue bytes after gc (before: %d)", before).isLessThan(before / 2);

    for (int id : new int[] {0, 1, 1500, 1999}) {
      r = run("get", Integer.toString(id), "--config", conf.toString(), "--data", data.toString());
      assertThat(r[0]).isEqualTo("0");
      assertThat(r[1]).contains("\"round\":3");
    }
    String[] v = run("verify", data.toString());
    assertThat(v[0]).as(v[1] + v[2]).isEqualTo("0");
    assertThat(
            run("gc", "--config", conf.toString(), "--data", data.toString(), "--target", "0.5")[0])
        .isEqualTo("2");
  }
}
