package io.docstore.bench.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.XYSeriesCollection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Charts drawn from a small results.json written the way the runner writes it. */
class ChartsTest {

  private static final byte[] PNG = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

  private static String phase(String name, long opsPerSecond, double p99, String extra) {
    return "RESULT phase="
        + name
        + " ops=100 seconds=0.5 engine_seconds=0.4 ops_per_s="
        + opsPerSecond
        + " p50_us=1.5 p99_us="
        + p99
        + " p999_us="
        + (p99 * 4)
        + " max_us=900.0 misses=0 wrong=0 read_bytes=0"
        + " write_bytes=0 read_calls=0 device_reads=0"
        + extra;
  }

  private static ChildResult run(String workload, String engine, String... phases) {
    List<String> out = new java.util.ArrayList<>(Arrays.asList(phases));
    out.add("PEAK_RSS 1000");
    return ChildResult.parse(workload, engine, out, 1000);
  }

  private static Path writeRun(Path dir) throws Exception {
    Map<String, Object> context = new LinkedHashMap<>();
    context.put("date", "2026-11-25T21:00:00Z");
    context.put("profile", "test");
    List<ChildResult> results =
        List.of(
            run("indeed-kv", "docstore", phase("write", 3000, 8, ""), phase("read", 900, 4, "")),
            run("indeed-kv", "rocksdb", phase("write", 1000, 20, ""), phase("read", 1200, 6, "")),
            run("indeed-kv", "lmdb", phase("write", 600, 30, ""), phase("read", 450, 2, "")),
            ChildResult.failed("indeed-kv", "leveldb", "crashed"),
            run(
                "readwhilewriting",
                "docstore",
                phase("read-under-writes", 500, 9, " p99_us_per_s=5.5,7.25,80.0")),
            run(
                "readwhilewriting",
                "rocksdb",
                phase("read-under-writes", 400, 12, " p99_us_per_s=11.0,12.5")));
    ResultFiles.write(dir, context, results);
    assertThat(Files.readString(dir.resolve("results.json")))
        .contains("\"p99_us_per_s\": [5.5,7.25,80.0]");
    return dir;
  }

  @Test
  void drawsValidPngsFromResultsJson(@TempDir Path tmp) throws Exception {
    Path dir = writeRun(tmp.resolve("run"));
    List<Path> written = Charts.render(dir);

    assertThat(written)
        .extracting(p -> p.getFileName().toString())
        .containsExactlyInAnyOrder(
            "ratios-indeed-kv.png",
            "latency-indeed-kv.png",
            "ratios-readwhilewriting.png",
            "latency-readwhilewriting.png",
            "readwhilewriting-read-under-writes-p99-over-time.png");
    for (Path png : written) {
      assertThat(png.getParent()).isEqualTo(dir);
      byte[] bytes = Files.readAllBytes(png);
      assertThat(bytes.length).as(png.toString()).isGreaterThan(2000);
      assertThat(Arrays.copyOf(bytes, PNG.length)).as(png.toString()).isEqualTo(PNG);
      BufferedImage image = ImageIO.read(png.toFile());
      assertThat(image.getWidth()).isEqualTo(900);
      assertThat(image.getHeight()).isGreaterThan(200);
    }
  }

  @Test
  void ratiosAreDocstoresOpsOverEachPeersAsTheJsonSays(@TempDir Path tmp) throws Exception {
    Path dir = writeRun(tmp.resolve("run"));
    List<Charts.Run> runs =
        Charts.runs(new ObjectMapper().readTree(dir.resolve("results.json").toFile()));
    List<Charts.Run> kv =
        runs.stream().filter(r -> r.workload().equals("indeed-kv") && !r.failed()).toList();
    assertThat(runs.stream().filter(Charts.Run::failed).map(Charts.Run::engine))
        .containsExactly("leveldb");

    DefaultCategoryDataset ratios = Charts.ratios(kv);
    assertThat(ratios.getRowKeys()).containsExactly("docstore / rocksdb", "docstore / lmdb");
    assertThat(ratios.getColumnKeys()).containsExactly("write", "read");
    assertThat(ratios.getValue("docstore / rocksdb", "write").doubleValue())
        .isCloseTo(3.0, within(1e-9));
    assertThat(ratios.getValue("docstore / rocksdb", "read").doubleValue())
        .isCloseTo(0.75, within(1e-9));
    assertThat(ratios.getValue("docstore / lmdb", "write").doubleValue())
        .isCloseTo(5.0, within(1e-9));
    assertThat(ratios.getValue("docstore / lmdb", "read").doubleValue())
        .isCloseTo(2.0, within(1e-9));

    assertThat(Charts.ratios(kv.subList(1, 3)).getRowCount()).as("no docstore, no ratios").isZero();
  }

  @Test
  void p99OverTimeIsOneSeriesPerEngineFromTheWindows(@TempDir Path tmp) throws Exception {
    Path dir = writeRun(tmp.resolve("run"));
    List<Charts.Run> rw =
        Charts.runs(new ObjectMapper().readTree(dir.resolve("results.json").toFile())).stream()
            .filter(r -> r.workload().equals("readwhilewriting"))
            .toList();
    XYSeriesCollection series = Charts.p99OverTime(rw, "read-under-writes");
    assertThat(series.getSeriesCount()).isEqualTo(2);
    assertThat(series.getSeries(0).getKey()).isEqualTo("docstore");
    assertThat(series.getSeries(0).getItemCount()).isEqualTo(3);
    assertThat(series.getSeries(0).getX(2).doubleValue()).isEqualTo(3.0);
    assertThat(series.getSeries(0).getY(2).doubleValue()).isEqualTo(80.0);
    assertThat(series.getSeries(1).getY(1).doubleValue()).isEqualTo(12.5);
    assertThat(Charts.p99OverTime(rw, "read-alone").getSeriesCount()).isZero();
  }
}
