package io.docstore.bench.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** ChildArgs, ChildResult, ResultTable and ResultFiles on hand-made engine output. */
class ResultOutputTest {

  private static List<String> output(long opsPerSecond) {
    return List.of(
        "some log line",
        "RESULT phase=write ops=100 seconds=0.5 engine_seconds=0.4 ops_per_s="
            + opsPerSecond
            + " p50_us=1.0 p99_us=2.0 p999_us=3.0"
            + " max_us=4.0 misses=0 wrong=0 read_bytes=8192 write_bytes=1000000 read_calls=3 device_reads=2",
        "RESULT phase=read ops=100 seconds=0.5 engine_seconds=0.5 ops_per_s=200 p50_us=1.0 p99_us=2.0 p999_us=3.0 max_us=4.0"
            + " misses=1 wrong=0 read_bytes=409600 write_bytes=500000 read_calls=100 device_reads=150",
        "SETTINGS bloom 10 bits/key; \"quoted\"",
        "NOTE joined x",
        "PEAK_RSS 104857600");
  }

  @Test
  void parsesTheEngineJvmsOutput() {
    ChildResult r = ChildResult.parse("indeed-kv", "rocksdb", output(100), 2_000_000);
    assertThat(r.failure()).isNull();
    assertThat(r.phases()).hasSize(2);
    assertThat(r.phase("read")).containsEntry("misses", "1").containsEntry("device_reads", "150");
    assertThat(r.settings()).isEqualTo("bloom 10 bits/key; \"quoted\"");
    assertThat(r.notes()).containsExactly("joined x");
    assertThat(r.peakRssBytes()).isEqualTo(104_857_600);
    assertThat(r.writeBytes()).isEqualTo(1_500_000);
    assertThat(ChildResult.parse("w", "e", List.of("crash"), 0).failure()).isNotNull();
  }

  @Test
  void tableHasARowPerEngineAndTheDocstoreRatio() {
    List<ChildResult> results =
        List.of(
            ChildResult.parse("indeed-kv", "docstore", output(500), 1_000_000),
            ChildResult.parse("indeed-kv", "rocksdb", output(100), 2_000_000),
            ChildResult.failed("indeed-kv", "lmdb", "engine JVM exited with 1"));
    String table = ResultTable.render("indeed-kv", results);
    assertThat(table)
        .contains(
            "### indeed-kv",
            "phase `write`",
            "phase `read`",
            "| docstore | 500 | 1.0 | 2.0 | 3.0 | 0 | 0 | 0.08 | 0.02 | 1.0 | 1.5 | 104.9 | - |",
            "| rocksdb | 100 | 1.0 | 2.0 | 3.0 | 0 | 0 | 0.08 | 0.02 | 2.0 | 1.5 | 104.9 | 5.00 |",
            "| rocksdb | 200 | 1.0 | 2.0 | 3.0 | 1 | 0 | 4.00 | 1.50 | 2.0 | 1.5 | 104.9 | 1.00 |",
            "lmdb: FAILED: engine JVM exited with 1",
            "rocksdb: joined x");
  }

  private static List<String> mixOutput(long opsPerSecond, double writeP99) {
    String rest = " misses=0 wrong=0 read_bytes=0 write_bytes=0 read_calls=0 device_reads=0";
    return List.of(
        "RESULT phase=load ops=10 seconds=1.0 engine_seconds=1.0 ops_per_s=10 p50_us=1.0 p99_us=2.0 p999_us=3.0 max_us=4.0"
            + rest,
        "RESULT phase=w5 ops=1000 seconds=2.0 engine_seconds=1.0 ops_per_s="
            + opsPerSecond
            + " p50_us=1.0 p99_us=9.0 p999_us=30.0 max_us=40.0"
            + rest,
        "RESULT phase=w5-read ops=950 seconds=2.0 engine_seconds=1.0 ops_per_s=950 p50_us=1.0 p99_us=2.0 p999_us=3.0"
            + " max_us=4.0"
            + rest,
        "RESULT phase=w5-write ops=50 seconds=2.0 engine_seconds=1.0 ops_per_s=50 p50_us=8.0 p99_us="
            + writeP99
            + " p999_us=900.0 max_us=1000.0"
            + rest,
        "PEAK_RSS 1");
  }

  @Test
  void mixesGetOneTableWithReadAndWriteLatenciesSideBySide() {
    String table =
        ResultTable.render(
            "mixed",
            List.of(
                ChildResult.parse("mixed", "docstore", mixOutput(1000, 800.0), 1),
                ChildResult.parse("mixed", "rocksdb", mixOutput(2000, 100.0), 1)));
    assertThat(table)
        .contains(
            "per mix",
            "| mix | engine | ops/s | wall ops/s | writes % | read p50 |",
            "| w5 | docstore | 1000 | 500 | 5.0 | 1.0 | 2.0 | 3.0 | 8.0 | 800.0 | 900.0 | - | - |",
            "| w5 | rocksdb | 2000 | 500 | 5.0 | 1.0 | 2.0 | 3.0 | 8.0 | 100.0 | 900.0 | 0.50 | 8.00 |",
            "phase `w5-write`");
    assertThat(table.indexOf("per mix")).isLessThan(table.indexOf("phase `load`"));
    assertThat(
            ResultTable.render(
                "jobs", List.of(ChildResult.parse("jobs", "docstore", output(1), 1))))
        .doesNotContain("per mix");
  }

  @Test
  void writesJsonAndCsv() {
    List<ChildResult> results =
        List.of(ChildResult.parse("indeed-kv", "rocksdb", output(100), 2_000_000));
    Map<String, Object> context = new LinkedHashMap<>();
    context.put("cores", 2);
    context.put("jvm", "Open\"JDK\"\n17");
    String json = ResultFiles.json(context, results);
    assertThat(json)
        .contains(
            "\"cores\": 2",
            "\"jvm\": \"Open\\\"JDK\\\"\\n17\"",
            "\"engine\": \"rocksdb\"",
            "\"failure\": null",
            "\"settings\": \"bloom 10 bits/key; \\\"quoted\\\"\"",
            "\"ops_per_s\": 100",
            "\"phase\": \"read\"");
    String csv = ResultFiles.csv(results);
    assertThat(csv.lines()).hasSize(3);
    assertThat(csv.lines().skip(2).findFirst().orElseThrow())
        .isEqualTo(
            "indeed-kv,rocksdb,2000000,104857600,read,100,0.5,0.5,200,1.0,2.0,3.0,4.0,1,0,409600,500000,100,150,");
    assertThat(csv.lines().findFirst().orElseThrow()).endsWith(",input_mb_per_s");
  }

  @Test
  void childArgsRoundTrip() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("engine", "lmdb");
    m.put("keys", 12L);
    m.put("dir", "/a=b");
    ChildArgs a = ChildArgs.parse(ChildArgs.format(m).toArray(String[]::new));
    assertThat(a.get("engine")).isEqualTo("lmdb");
    assertThat(a.getLong("keys")).isEqualTo(12);
    assertThat(a.get("dir")).isEqualTo("/a=b");
    assertThat(a.getOrNull("cgroup")).isNull();
  }
}
