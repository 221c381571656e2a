package io.docstore.bench.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.docstore.bench.workloads.ChurnWorkload;
import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.labels.StandardCategoryItemLabelGenerator;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.CombinedDomainCategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.Range;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.general.DatasetUtils;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The charts of one run, drawn from its {@code results.json} into PNG files in the same directory
 * (JFreeChart, headless; docs/decisions/37-bench-charts-drawn-with-jfreechart.md):
 *
 * <ul>
 *   <li>{@code ratios-WORKLOAD.png}: docstore's ops/s over each peer's, one group of bars per phase
 *       (above 1: docstore is faster), the same numbers as the tables' last column;
 *   <li>{@code latency-WORKLOAD.png}: p50, p99 and p99.9 per engine on a log scale, one panel per
 *       phase;
 *   <li>{@code WORKLOAD-p99-over-time.png}: for phases that carry {@code p99_us_per_s} (the reader
 *       of readwhilewriting), the p99 of each 1-second window per engine, log scale;
 *   <li>{@code WORKLOAD-disk.png}: for phases with disk samples (churn's), bytes on disk over the
 *       simulated days per engine ({@link DiskChart}).
 * </ul>
 *
 * {@link BenchMain} draws them after every run; {@link #main} draws them for a run directory
 * written earlier ({@code scripts/bench-charts DIR...}). Engines that failed are left out.
 */
public final class Charts {

  /**
   * The field of a phase with the p99 (us) of each 1-second window: comma-separated on the engine
   * JVM's RESULT line, an array of numbers in results.json.
   */
  static final String SERIES_FIELD = "p99_us_per_s";

  /** Every field that is a series: comma-separated on a RESULT line, an array in results.json. */
  static final Set<String> SERIES_FIELDS =
      Set.of(
          SERIES_FIELD,
          ChurnWorkload.SAMPLE_DAY,
          ChurnWorkload.SAMPLE_DISK,
          ChurnWorkload.SAMPLE_LIVE);

  /** churn's chart of bytes on disk over the simulated days ({@link DiskChart}). */
  static final String CHURN_DISK_CHART = "churn" + DiskChart.SUFFIX;

  private static final int WIDTH = 900;
  private static final int PANEL_HEIGHT = 260;

  /** p50, p99, p99.9: the same colour in every panel. */
  private static final Color[] PERCENTILE_COLORS = {
    new Color(0x4e79a7), new Color(0xf28e2b), new Color(0xe15759)
  };

  static {
    // Before any AWT class loads: no display is needed, or looked for, to draw into an image.
    System.setProperty("java.awt.headless", "true");
  }

  private Charts() {}

  /** One engine's run of one workload as results.json has it (a phase's fields as text). */
  record Run(String workload, String engine, boolean failed, List<Map<String, String>> phases) {

    Map<String, String> phase(String name) {
      return phases.stream().filter(p -> name.equals(p.get("phase"))).findFirst().orElse(null);
    }
  }

  /** Draws the charts of each run directory given (each holding a results.json). */
  public static void main(String[] args) throws IOException {
    if (args.length == 0) {
      System.err.println(
          "usage: Charts RUN_DIR... (each with a results.json; the PNGs are written next to it)");
      System.exit(2);
      return;
    }
    for (String dir : args) {
      for (Path png : render(Path.of(dir))) {
        System.out.println(png);
      }
    }
  }

  /**
   * Reads {@code runDir/results.json} and writes the charts next to it; returns the files written.
   */
  static List<Path> render(Path runDir) throws IOException {
    JsonNode root = new ObjectMapper().readTree(runDir.resolve("results.json").toFile());
    return render(runDir, subtitle(root.path("context")), runs(root));
  }

  static List<Run> runs(JsonNode root) {
    List<Run> runs = new ArrayList<>();
    for (JsonNode r : root.path("runs")) {
      List<Map<String, String>> phases = new ArrayList<>();
      for (JsonNode p : r.path("phases")) {
        Map<String, String> fields = new LinkedHashMap<>();
        p.fields()
            .forEachRemaining(
                f -> {
                  JsonNode v = f.getValue();
                  if (v.isArray()) {
                    List<String> items = new ArrayList<>();
                    v.forEach(item -> items.add(item.asText()));
                    fields.put(f.getKey(), String.join(",", items));
                  } else {
                    fields.put(f.getKey(), v.asText());
                  }
                });
        phases.add(fields);
      }
      runs.add(
          new Run(
              r.path("workload").asText(),
              r.path("engine").asText(),
              !r.path("failure").isNull(),
              phases));
    }
    return runs;
  }

  private static String subtitle(JsonNode context) {
    List<String> parts = new ArrayList<>();
    for (String key : List.of("date", "profile", "cores", "memory_total", "jvm")) {
      if (context.hasNonNull(key)) {
        parts.add(
            key.equals("cores") ? context.get(key).asText() + " cores" : context.get(key).asText());
      }
    }
    return String.join(", ", parts);
  }

  static List<Path> render(Path outDir, String subtitle, List<Run> runs) throws IOException {
    Files.createDirectories(outDir);
    Map<String, List<Run>> byWorkload = new LinkedHashMap<>();
    for (Run r : runs) {
      if (!r.failed()) {
        byWorkload.computeIfAbsent(r.workload(), w -> new ArrayList<>()).add(r);
      }
    }
    List<Path> written = new ArrayList<>();
    for (Map.Entry<String, List<Run>> e : byWorkload.entrySet()) {
      String workload = e.getKey();
      List<Run> results = e.getValue();
      DefaultCategoryDataset ratios = ratios(results);
      if (ratios.getRowCount() > 0) {
        written.add(
            save(
                outDir.resolve("ratios-" + workload + ".png"),
                ratioChart(workload, subtitle, ratios),
                PANEL_HEIGHT + 140));
      }
      List<String> phases = phases(results);
      written.add(
          save(
              outDir.resolve("latency-" + workload + ".png"),
              latencyChart(workload, subtitle, phases, results),
              80 + PANEL_HEIGHT * phases.size()));
      for (String phase : phases) {
        XYSeriesCollection series = p99OverTime(results, phase);
        if (series.getSeriesCount() > 0) {
          written.add(
              save(
                  outDir.resolve(workload + "-" + phase + "-p99-over-time.png"),
                  timeChart(workload, phase, subtitle, series),
                  PANEL_HEIGHT + 140));
        }
      }
      DiskChart.render(outDir, workload, subtitle, results).ifPresent(written::add);
    }
    return written;
  }

  /**
   * docstore's ops/s over each peer's: a row per peer, a column per phase both ran (a peer with 0
   * ops/s in a phase gets no bar there). Empty without a docstore run.
   */
  static DefaultCategoryDataset ratios(List<Run> results) {
    DefaultCategoryDataset data = new DefaultCategoryDataset();
    Run docstore =
        results.stream()
            .filter(r -> r.engine().equals(ResultTable.DOCSTORE))
            .findFirst()
            .orElse(null);
    if (docstore == null) {
      return data;
    }
    for (String phase : phases(results)) {
      Map<String, String> d = docstore.phase(phase);
      if (d == null) {
        continue;
      }
      for (Run r : results) {
        Map<String, String> p = r.phase(phase);
        if (r == docstore || p == null) {
          continue;
        }
        double peer = number(p, "ops_per_s");
        if (peer > 0) {
          data.addValue(number(d, "ops_per_s") / peer, "docstore / " + r.engine(), phase);
        }
      }
    }
    return data;
  }

  /** The p99 of each 1-second window of one phase, a series per engine that recorded them. */
  static XYSeriesCollection p99OverTime(List<Run> results, String phase) {
    XYSeriesCollection data = new XYSeriesCollection();
    for (Run r : results) {
      Map<String, String> p = r.phase(phase);
      String values = p == null ? null : p.get(SERIES_FIELD);
      if (values == null || values.isBlank()) {
        continue;
      }
      XYSeries s = new XYSeries(r.engine());
      String[] v = values.split(",");
      for (int i = 0; i < v.length; i++) {
        double us = Double.parseDouble(v[i]);
        if (us > 0) {
          s.add(i + 1, us);
        }
      }
      data.addSeries(s);
    }
    return data;
  }

  private static JFreeChart ratioChart(
      String workload, String subtitle, DefaultCategoryDataset data) {
    CategoryAxis phases = new CategoryAxis("phase");
    NumberAxis ratio = new NumberAxis("docstore ops/s ÷ peer ops/s (above 1: docstore faster)");
    BarRenderer bars = bars();
    bars.setDefaultItemLabelGenerator(
        new StandardCategoryItemLabelGenerator("{2}", new DecimalFormat("0.00")));
    bars.setDefaultItemLabelsVisible(true);
    ratio.setUpperMargin(0.1);
    CategoryPlot plot = new CategoryPlot(data, phases, ratio, bars);
    plot.setOrientation(PlotOrientation.VERTICAL);
    ValueMarker one = new ValueMarker(1.0, Color.DARK_GRAY, new BasicStroke(1.5f));
    plot.addRangeMarker(one);
    style(plot);
    return chart(workload + ": docstore ops/s relative to each peer, per phase", subtitle, plot);
  }

  private static JFreeChart latencyChart(
      String workload, String subtitle, List<String> phases, List<Run> results) {
    CombinedDomainCategoryPlot combined =
        new CombinedDomainCategoryPlot(new CategoryAxis("engine"));
    combined.setGap(12);
    for (String phase : phases) {
      DefaultCategoryDataset data = new DefaultCategoryDataset();
      for (Run r : results) {
        Map<String, String> p = r.phase(phase);
        if (p == null) {
          continue;
        }
        for (String[] q :
            new String[][] {{"p50_us", "p50"}, {"p99_us", "p99"}, {"p999_us", "p99.9"}}) {
          double us = number(p, q[0]);
          data.addValue(us > 0 ? us : null, q[1], r.engine());
        }
      }
      LogAxis us =
          logAxis(
              phase + ": us (log)",
              data.getRowCount() == 0 ? null : DatasetUtils.findRangeBounds(data));
      us.setLabelFont(us.getLabelFont().deriveFont(11f));
      BarRenderer bars = bars();
      bars.setIncludeBaseInRange(false);
      for (int i = 0; i < PERCENTILE_COLORS.length; i++) {
        bars.setSeriesPaint(i, PERCENTILE_COLORS[i]);
        // One legend for all panels: the percentiles have the same colours in each.
        bars.setSeriesVisibleInLegend(i, combined.getSubplots().isEmpty());
      }
      CategoryPlot plot = new CategoryPlot(data, null, us, bars);
      style(plot);
      combined.add(plot);
    }
    combined.getDomainAxis().setCategoryLabelPositions(CategoryLabelPositions.STANDARD);
    return chart(workload + ": latency per phase and engine (p50, p99, p99.9)", subtitle, combined);
  }

  private static JFreeChart timeChart(
      String workload, String phase, String subtitle, XYSeriesCollection data) {
    NumberAxis seconds = new NumberAxis("second of the phase");
    seconds.setAutoRangeIncludesZero(false);
    seconds.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
    LogAxis us = logAxis("p99 of the window, us (log)", DatasetUtils.findRangeBounds(data));
    return chart(
        workload + ", " + phase + ": p99 per 1-second window",
        subtitle,
        linePlot(data, seconds, us, true));
  }

  /** Lines (with a mark at each point, or without), one per series, on a white plot. */
  static XYPlot linePlot(
      XYSeriesCollection data,
      org.jfree.chart.axis.ValueAxis x,
      org.jfree.chart.axis.ValueAxis y,
      boolean marks) {
    XYPlot plot = new XYPlot(data, x, y, new XYLineAndShapeRenderer(true, marks));
    plot.setBackgroundPaint(Color.WHITE);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
    return plot;
  }

  /**
   * A log axis over whole decades around {@code bounds} (0.1, 1, 10, ... us), ticks at each decade
   * written as plain numbers.
   */
  private static LogAxis logAxis(String label, Range bounds) {
    LogAxis axis = new LogAxis(label);
    axis.setSmallestValue(0.01);
    if (bounds != null && bounds.getUpperBound() > 0) {
      double low = Math.pow(10, Math.floor(Math.log10(Math.max(0.01, bounds.getLowerBound()))));
      double high = Math.pow(10, Math.ceil(Math.log10(bounds.getUpperBound())));
      axis.setRange(low, high <= low ? low * 10 : high);
    }
    axis.setTickUnit(new NumberTickUnit(1.0), false, true);
    axis.setNumberFormatOverride(new DecimalFormat("#,##0.##"));
    axis.setMinorTickCount(9);
    axis.setMinorTickMarksVisible(true);
    return axis;
  }

  private static BarRenderer bars() {
    BarRenderer bars = new BarRenderer();
    bars.setBarPainter(new StandardBarPainter());
    bars.setShadowVisible(false);
    bars.setItemMargin(0.05);
    bars.setDrawBarOutline(false);
    return bars;
  }

  private static void style(CategoryPlot plot) {
    plot.setBackgroundPaint(Color.WHITE);
    plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
    plot.setRangeGridlinesVisible(true);
  }

  static JFreeChart chart(String title, String subtitle, org.jfree.chart.plot.Plot plot) {
    JFreeChart chart =
        new JFreeChart(title, JFreeChart.DEFAULT_TITLE_FONT.deriveFont(15f), plot, true);
    chart.setBackgroundPaint(Color.WHITE);
    if (!subtitle.isEmpty()) {
      chart.addSubtitle(new TextTitle(subtitle));
    }
    return chart;
  }

  static Path save(Path file, JFreeChart chart, int height) throws IOException {
    ChartUtils.saveChartAsPNG(file.toFile(), chart, WIDTH, height);
    return file;
  }

  private static List<String> phases(List<Run> results) {
    Set<String> phases = new LinkedHashSet<>();
    for (Run r : results) {
      r.phases().forEach(p -> phases.add(p.get("phase")));
    }
    return new ArrayList<>(phases);
  }

  private static double number(Map<String, String> phase, String field) {
    String v = phase.get(field);
    if (v == null || v.isEmpty() || v.equals("-")) {
      return 0;
    }
    return Double.parseDouble(v);
  }
}
