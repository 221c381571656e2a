package io.docstore.bench.runner;

import io.docstore.bench.workloads.ChurnWorkload;
import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYItemRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * {@code WORKLOAD-disk.png} of {@link Charts}: for a workload whose phases carry disk samples
 * (churn's), the bytes each engine's directory occupied on disk over the simulated days, a line per
 * engine, and the uncompressed bytes of the live documents (the same workload for every engine:
 * drawn once, from the first engine's samples).
 */
final class DiskChart {

  static final String SUFFIX = "-disk.png";

  private static final String LIVE = "live documents (uncompressed)";

  /** A colour per engine, distinct on white (the live documents' line is dashed grey). */
  private static final Color[] COLORS = {
    new Color(0xe15759),
    new Color(0x4e79a7),
    new Color(0xf28e2b),
    new Color(0x59a14f),
    new Color(0xb07aa1),
    new Color(0x76b7b2),
    new Color(0x9c755f)
  };

  private DiskChart() {}

  /** Draws the chart if any run of {@code workload} has disk samples; the file written. */
  static Optional<Path> render(Path outDir, String workload, String subtitle, List<Charts.Run> runs)
      throws IOException {
    XYSeriesCollection data = series(runs);
    if (data.getSeriesCount() == 0) {
      return Optional.empty();
    }
    NumberAxis day = new NumberAxis("simulated day");
    day.setRange(0, 90);
    day.setTickUnit(new org.jfree.chart.axis.NumberTickUnit(10));
    NumberAxis megabytes = new NumberAxis("MB on disk (10^6 bytes)");
    XYPlot plot = Charts.linePlot(data, day, megabytes, false);
    XYItemRenderer lines = plot.getRenderer();
    for (int i = 0; i < data.getSeriesCount(); i++) {
      lines.setSeriesPaint(i, COLORS[i % COLORS.length]);
      lines.setSeriesStroke(i, new BasicStroke(2f));
    }
    int live = data.getSeriesCount() - 1;
    lines.setSeriesPaint(live, Color.DARK_GRAY);
    lines.setSeriesStroke(
        live,
        new BasicStroke(
            2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f));
    return Optional.of(
        Charts.save(
            outDir.resolve(workload + SUFFIX),
            Charts.chart(
                workload + ": bytes on disk over 90 simulated days (30-day expiry)",
                subtitle,
                plot),
            480));
  }

  /** A series per engine with samples, in MB by simulated day, then the live documents'. */
  static XYSeriesCollection series(List<Charts.Run> runs) {
    XYSeriesCollection data = new XYSeriesCollection();
    XYSeries live = null;
    for (Charts.Run r : runs) {
      Map<String, String> p =
          r.phases().stream()
              .filter(f -> f.containsKey(ChurnWorkload.SAMPLE_DISK))
              .findFirst()
              .orElse(null);
      if (p == null) {
        continue;
      }
      String[] days = p.get(ChurnWorkload.SAMPLE_DAY).split(",");
      data.addSeries(megabytes(r.engine(), days, p.get(ChurnWorkload.SAMPLE_DISK).split(",")));
      if (live == null) {
        live = megabytes(LIVE, days, p.get(ChurnWorkload.SAMPLE_LIVE).split(","));
      }
    }
    if (live != null) {
      data.addSeries(live);
    }
    return data;
  }

  private static XYSeries megabytes(String name, String[] days, String[] bytes) {
    XYSeries s = new XYSeries(name);
    for (int i = 0; i < days.length && i < bytes.length; i++) {
      s.add(Double.parseDouble(days[i]), Double.parseDouble(bytes[i]) / 1e6);
    }
    return s;
  }
}
