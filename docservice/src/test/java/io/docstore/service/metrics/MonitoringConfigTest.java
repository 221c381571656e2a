package io.docstore.service.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.kafka.local.KafkaProcess;
import io.docstore.service.ServiceFixture;
import io.docstore.service.config.DocstoreConfig;
import io.docstore.service.replica.ReplicaServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The alerting rules in {@code config/prometheus/} with the real Prometheus of Debian's package
 * ({@code scripts/install-deps}): {@code promtool} checks them and runs their unit tests; every
 * metric they name is one a running primary or replica exports; and a real Prometheus server
 * scrapes a running docstore, loads the rules, and answers a query for a docstore metric.
 */
class MonitoringConfigTest {

  @TempDir Path tmp;

  private static final Path RULES_DIR = repoRoot().resolve("config/prometheus");
  private static final Path RULES = RULES_DIR.resolve("docstore-rules.yml");
  private static final Path DASHBOARD = repoRoot().resolve("config/grafana/docstore.json");

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private static Path repoRoot() {
    Path p = Path.of("").toAbsolutePath();
    while (p != null && !Files.isDirectory(p.resolve("config/prometheus"))) {
      p = p.getParent();
    }
    if (p == null) {
      throw new IllegalStateException("config/prometheus not found above the working directory");
    }
    return p;
  }

  private static String binary(String name) {
    for (String dir : List.of("/usr/bin", "/usr/local/bin", "/usr/sbin")) {
      if (Files.isExecutable(Path.of(dir, name))) {
        return dir + "/" + name;
      }
    }
    throw new IllegalStateException(name + " is not installed; run scripts/install-deps (as root)");
  }

  private static String run(Path dir, String... cmd) throws Exception {
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(String.join(" ", cmd) + ":\n" + out).isZero();
    return out;
  }

  @Test
  void promtoolChecksTheRulesAndTheirUnitTestsPass() throws Exception {
    String promtool = binary("promtool");
    assertThat(run(RULES_DIR, promtool, "check", "rules", "docstore-rules.yml"))
        .contains("SUCCESS: 11 rules found");
    assertThat(run(RULES_DIR, promtool, "test", "rules", "docstore-rules.test.yml"))
        .contains("SUCCESS");
  }

  /** The metric names in {@code text}: docstore's and the JVM's. */
  private static TreeSet<String> metricNames(String text) {
    TreeSet<String> named = new TreeSet<>();
    Matcher m = Pattern.compile("\\b((?:docstore|jvm)_[a-z_]+)\\b").matcher(text);
    while (m.find()) {
      named.add(m.group(1));
    }
    return named;
  }

  /** Every query expression of the dashboard. */
  private static List<String> dashboardQueries() throws IOException {
    List<String> out = new ArrayList<>();
    new com.fasterxml.jackson.databind.ObjectMapper()
        .readTree(DASHBOARD.toFile())
        .findValues("expr")
        .forEach(e -> out.add(e.asText()));
    return out;
  }

  /**
   * What a running primary (after a write, reads and a GC), a replica and a shard in Kafka mode (a
   * real broker) export.
   */
  private String scrapes() throws Exception {
    StringBuilder scrapes = new StringBuilder();
    try (ServiceFixture s = ServiceFixture.start(tmp.resolve("primary"))) {
      s.put(1, "{\"a\":1}");
      s.get("/docs/1");
      s.get("/docs/1");
      System.gc(); // so the GC pause timer has a sample
      Thread.sleep(200);
      scrapes.append(s.adminGet("/metrics").body());
    }
    Map<String, Object> c = new java.util.HashMap<>();
    c.put("docstore.data-dir", tmp.resolve("replica").toString());
    c.put("docstore.http.read.port", 0);
    c.put("docstore.http.admin.port", 0);
    c.put("docstore.rpc.enabled", false);
    try (ReplicaServer r =
        ReplicaServer.start(
            DocstoreConfig.load(null, c), io.docstore.service.replica.NoPrimary.config())) {
      scrapes.append(get("http://127.0.0.1:" + r.adminPort() + "/metrics").body());
    }
    try (KafkaProcess kafka = KafkaProcess.start(tmp.resolve("broker"))) {
      try (Admin admin =
          Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap()))) {
        admin
            .createTopics(List.of(new NewTopic("docs", 2, (short) 1)))
            .all()
            .get(30, TimeUnit.SECONDS);
      }
      try (ServiceFixture s =
          ServiceFixture.start(
              tmp.resolve("shard"),
              Map.of(
                  "docstore.updates.kafka.bootstrap-servers", kafka.bootstrap(),
                  "docstore.updates.kafka.topic", "docs",
                  "docstore.updates.kafka.partitions", List.of(0, 1)))) {
        scrapes.append(s.adminGet("/metrics").body());
      }
    }
    return scrapes.toString();
  }

  @Test
  void everyMetricTheRulesAndTheDashboardNameIsExported() throws Exception {
    TreeSet<String> inRules = metricNames(Files.readString(RULES));
    assertThat(inRules)
        .contains(
            "docstore_corruption_total",
            "docstore_replica_lag_seconds",
            "docstore_kafka_retries_total");
    List<String> queries = dashboardQueries();
    assertThat(queries).hasSizeGreaterThanOrEqualTo(10);
    TreeSet<String> inDashboard = metricNames(String.join("\n", queries));
    String scrapes = scrapes();
    for (var named : List.of(Map.entry("rules", inRules), Map.entry("dashboard", inDashboard))) {
      List<String> missing = new ArrayList<>();
      for (String name : named.getValue()) {
        if (!Pattern.compile("(?m)^" + Pattern.quote(name) + "[{ ]").matcher(scrapes).find()) {
          missing.add(name);
        }
      }
      assertThat(missing)
          .as("metrics the %s name that no docstore exports", named.getKey())
          .isEmpty();
    }
  }

  @Test
  void aRealPrometheusScrapesDocstoreAndLoadsTheRules() throws Exception {
    String prometheus = binary("prometheus");
    try (ServiceFixture s = ServiceFixture.start(tmp.resolve("data"))) {
      s.put(7, "{\"a\":7}");
      String target = s.admin("/metrics").getAuthority();
      int port;
      try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        port = free.getLocalPort();
      }
      Path config = tmp.resolve("prometheus.yml");
      Files.writeString(
          config,
          "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
              + "rule_files:\n  - "
              + RULES
              + "\nscrape_configs:\n  - job_name: docstore\n    static_configs:\n"
              + "      - targets: ['"
              + target
              + "']\n");
      Process p =
          new ProcessBuilder(
                  prometheus,
                  "--config.file=" + config,
                  "--storage.tsdb.path=" + tmp.resolve("tsdb"),
                  "--web.listen-address=127.0.0.1:" + port)
              .redirectErrorStream(true)
              .redirectOutput(tmp.resolve("prometheus.log").toFile())
              .start();
      try {
        String api = "http://127.0.0.1:" + port + "/api/v1/";
        String query =
            api
                + "query?query="
                + URLEncoder.encode(
                    "docstore_writes_total{job=\"docstore\",op=\"put\"}", StandardCharsets.UTF_8);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String body = "";
        while (System.nanoTime() < deadline && !body.contains("\"value\"")) {
          Thread.sleep(250);
          try {
            body = get(query).body();
          } catch (IOException notYet) {
            body = "";
          }
        }
        assertThat(body)
            .as("Prometheus answered the query (log: %s)", tmp.resolve("prometheus.log"))
            .contains("\"__name__\":\"docstore_writes_total\"")
            .contains("\"value\"");
        assertThat(get(api + "rules").body())
            .contains("\"name\":\"docstore\"")
            .contains("DocstoreCorruptionDetected");
        assertThat(get(api + "query?query=up").body()).contains("\"job\":\"docstore\"");
        for (String q : dashboardQueries()) {
          String promql = q.replace("$__rate_interval", "1m").replace("$instance", ".*");
          String answer =
              get(api + "query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8)).body();
          assertThat(answer)
              .as("the dashboard's query %s", promql)
              .contains("\"status\":\"success\"");
        }
      } finally {
        p.destroy();
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      }
    }
  }

  private HttpResponse<String> get(String url) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
