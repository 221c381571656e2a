package io.docstore.bench.runner;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The churn workload end to end at a tiny size (2,000 live documents, 10,000 updates in 4 s per
 * engine): docstore with and without its space reclamation and one peer, each in its own JVM, every
 * read verified; the table, the result fields and the disk chart; and the space reclamation gives
 * back space.
 */
class ChurnBenchTest {

  @TempDir Path tmp;

  @Test
  void docstoreWithItsSpaceReclamationEndsSmallerThanWithout() throws Exception {
    BenchOptions o =
        BenchMainTest.tiny(tmp, List.of("churn"), List.of("docstore", "docstore-nogc", "lmdb"));
    o.churn.keys = 2000;
    o.churn.updates = 10_000;
    o.churn.rate = 2500;
    o.churn.chartOut = tmp.resolve("docs").resolve("churn-disk.png");
    // Scaled for churn to its 2,000 documents: 67,108 bytes, also docstore's segment size. Under
    // 128 KiB, a segment holds no zstd dictionary of its own (64 KiB, which would be half of it).
    o.writeBufferBytes = 32L << 20;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    boolean ok = BenchMain.run(o, new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
    String tables = out.toString(StandardCharsets.UTF_8);
    assertThat(ok).as(tables).isTrue();
    assertThat(tables)
        .contains(
            "### churn",
            "| engine | offered | achieved | max lag s |",
            "| docstore | ",
            "| docstore-nogc | ",
            "| lmdb | ",
            "phase `churn-read`")
        .doesNotContain("FAILED");

    JsonNode root = new ObjectMapper().readTree(o.out.resolve("results.json").toFile());
    assertThat(root.path("context").path("churn_write_buffer_bytes").asLong())
        .as("the write buffer scaled to 2,000 of the full 1,000,000 live documents")
        .isEqualTo((32L << 20) * 2000 / 1_000_000);
    Map<String, JsonNode> churn = new HashMap<>();
    for (JsonNode run : root.path("runs")) {
      assertThat(run.path("failure").isNull()).isTrue();
      JsonNode writer = run.path("phases").get(0);
      assertThat(writer.path("phase").asText()).isEqualTo("churn");
      assertThat(run.path("phases").get(1).path("phase").asText()).isEqualTo("churn-read");
      churn.put(run.path("engine").asText(), writer);
      for (String field :
          List.of(
              "updates",
              "offered_updates_per_s",
              "updates_per_s",
              "max_lag_s",
              "live_bytes",
              "disk_bytes_end",
              "space_amp")) {
        assertThat(writer.path(field).asDouble()).as(field).isPositive();
      }
      assertThat(writer.path("updates").asLong()).isBetween(9_500L, 10_500L);
      int samples = writer.path("sample_day").size();
      assertThat(samples)
          .as("a sample a simulated day, fewer if the sampler was late when the writer ended")
          .isBetween(46, 91);
      assertThat(writer.path("sample_day").get(samples - 1).asDouble()).isGreaterThan(89.0);
      assertThat(writer.path("sample_disk_bytes").size()).isEqualTo(samples);
      assertThat(writer.path("sample_live_bytes").size()).isEqualTo(samples);
    }
    JsonNode gc = churn.get("docstore");
    JsonNode nogc = churn.get("docstore-nogc");
    assertThat(gc.path("expiry_deletes").asLong()).as("docstore expires by itself").isZero();
    assertThat(churn.get("lmdb").path("expiry_deletes").asLong()).isPositive();
    assertThat(gc.path("gc_reclaimed_bytes").asLong()).isPositive();
    assertThat(gc.path("gc_write_amp").asDouble()).isPositive();
    assertThat(nogc.path("gc_reclaimed_bytes").asLong()).isZero();
    assertThat(gc.path("space_amp").asDouble())
        .as("bytes on disk over live bytes, with the space reclamation and without")
        .isLessThan(nogc.path("space_amp").asDouble());
    assertThat(gc.path("engine_space_amp").asDouble())
        .isLessThan(nogc.path("engine_space_amp").asDouble());
    assertThat(gc.path("disk_bytes_end").asLong()).isLessThan(nogc.path("disk_bytes_end").asLong());

    assertThat(o.out.resolve(Charts.CHURN_DISK_CHART)).isNotEmptyFile();
    assertThat(o.churn.chartOut).hasSameBinaryContentAs(o.out.resolve(Charts.CHURN_DISK_CHART));
  }

  @Test
  void churnRunsOnItsOwnEnginesAndOnlyWhenNamed() {
    assertThat(BenchOptions.parse(new String[0], tmp).workloads).doesNotContain("churn");
    BenchOptions full = BenchOptions.parse(new String[] {"--workload", "churn", "--full"}, tmp);
    assertThat(full.keysFor("churn")).isEqualTo(1_000_000);
    assertThat(full.churn.updates).isEqualTo(10_000_000);
    assertThat(full.writeBufferFor("churn")).isEqualTo(64L << 20);
    assertThat(full.timeoutFor("churn")).isGreaterThan(2 * 1000);
    BenchOptions quick =
        BenchOptions.parse(new String[] {"--keys", "5000", "--churn-rate", "100"}, tmp);
    assertThat(quick.keysFor("churn")).isEqualTo(5000);
    assertThat(quick.kvKeys).isEqualTo(5000);
    assertThat(quick.churn.updates).isEqualTo(1_000_000);
    assertThat(quick.churn.rate).isEqualTo(100);
    StringBuilder header = new StringBuilder();
    assertThat(BenchMain.enginesFor("churn", quick.engines, header))
        .containsExactly("docstore", "docstore-nogc", "rocksdb", "rocksdb-blob", "lmdb");
    assertThat(header.toString()).contains("leveldb, lsmtree: not run");
    assertThat(BenchMain.enginesFor("jobs", quick.engines, new StringBuilder()))
        .doesNotContain("docstore-nogc");
  }
}
