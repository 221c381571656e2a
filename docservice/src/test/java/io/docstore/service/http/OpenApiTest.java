package io.docstore.service.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.docstore.service.ServiceFixture;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code docs/api/openapi.yaml} against a running server, both ways: every documented operation and
 * status that a request can bring about is what the server answers to that request (the others,
 * which need a fault, are named below), and every (method, path) the server serves on either port,
 * anything but 404 or 405, is documented on that port with the status it answered.
 */
class OpenApiTest {

  @TempDir Path dir;

  /** For a second node (one without a shard map) and the shard map file. */
  @TempDir Path elsewhere;

  private static final String TOKEN = "Bearer s3cret";

  /** Statuses documented but brought about only by faults, which other tests inject. */
  private static final Set<String> FAULTS =
      Set.of(
          "GET /docs/{id} 500", // damaged data: DamagedRecordTest, TortureCorruptionTest
          "GET /docs/{id} 503", // saturated workers or response budget: TortureSlowReaderTest
          "HEAD /docs/{id} 503",
          "GET /docs 503",
          "HEAD /docs 503",
          "PUT /docs/{id} 503", // failed fsync: TortureDiskTest
          "DELETE /docs/{id} 503",
          "POST /docs/_bulk 503",
          "PUT /docs/{id} 507", // full disk: TortureDiskTest
          "DELETE /docs/{id} 507",
          "POST /docs/_bulk 507",
          "PUT /docs/{id} 409", // Kafka mode: KafkaIngestTest
          "DELETE /docs/{id} 409",
          "POST /docs/_bulk 409",
          "GET /log-position/{partition} 200", // Kafka mode: ReadYourWritesKafkaTest
          "GET /readyz 503", // starting or draining: ServeDrainTest
          "HEAD /readyz 503",
          "GET /lookup/{id} 500"); // damaged data: DamagedRecordTest

  /** "METHOD path status" for each documented response, and the port of each operation. */
  private final Set<String> documented = new TreeSet<>();

  private final Map<String, String> portOf = new HashMap<>();

  private void readSpec() throws Exception {
    Path spec = Path.of("").toAbsolutePath();
    while (!Files.exists(spec.resolve("docs/api/openapi.yaml"))) {
      spec = spec.getParent();
    }
    JsonNode root =
        new ObjectMapper(new YAMLFactory())
            .readTree(Files.readString(spec.resolve("docs/api/openapi.yaml")));
    assertThat(root.get("openapi").asText()).startsWith("3.");
    root.get("paths")
        .fields()
        .forEachRemaining(
            p ->
                p.getValue()
                    .fields()
                    .forEachRemaining(
                        op -> {
                          if (op.getKey().equals("parameters")) {
                            return;
                          }
                          String key = op.getKey().toUpperCase() + " " + p.getKey();
                          String url = op.getValue().get("servers").get(0).get("url").asText();
                          portOf.put(key, url.endsWith(":8080") ? "read" : "admin");
                          op.getValue()
                              .get("responses")
                              .fieldNames()
                              .forEachRemaining(status -> documented.add(key + " " + status));
                        }));
  }

  private record Case(
      String port, String method, String uri, String auth, String body, String inm) {}

  private HttpResponse<String> send(ServiceFixture s, Case c) throws Exception {
    URI base = URI.create(c.port.equals("read") ? s.service.readUrl() : s.service.adminUrl());
    HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(c.uri));
    if (c.auth != null) {
      b.header("Authorization", c.auth);
    }
    if (c.inm != null) {
      b.header("If-None-Match", c.inm);
    }
    b.method(
        c.method,
        c.body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(c.body));
    return s.send(b.build());
  }

  /** The documented path a request's URI falls under on {@code port}. */
  private static String template(String port, String uri) {
    String path = uri.contains("?") ? uri.substring(0, uri.indexOf('?')) : uri;
    if (path.startsWith("/docs/") && !(port.equals("admin") && path.equals("/docs/_bulk"))) {
      return "/docs/{id}";
    }
    if (path.startsWith("/lookup/")) {
      return "/lookup/{id}";
    }
    if (path.startsWith("/log-position/")) {
      return "/log-position/{partition}";
    }
    return path;
  }

  @Test
  void theDescriptionAndTheServerAgreeBothWays() throws Exception {
    readSpec();
    java.nio.file.Path map = elsewhere.resolve("shards.map");
    java.nio.file.Files.writeString(map, "partitions 1\nshard a 0 127.0.0.1:7400\n");
    try (ServiceFixture s =
            ServiceFixture.start(
                dir,
                Map.of(
                    "docstore.http.admin.token",
                    "s3cret",
                    "docstore.cluster.shard-map",
                    map.toString()));
        ServiceFixture noMap = ServiceFixture.start(elsewhere.resolve("no-map"))) {
      assertThat(
              send(s, new Case("admin", "PUT", "/docs/1", TOKEN, "{\"a\":1}", null)).statusCode())
          .isEqualTo(200);
      String etag =
          send(s, new Case("read", "GET", "/docs/1", null, null, null))
              .headers()
              .firstValue("etag")
              .orElseThrow();
      String big = "{\"a\":\"" + "x".repeat(2 << 20) + "\"}";
      StringBuilder tooManyLines = new StringBuilder();
      for (int i = 0; i < 10_001; i++) {
        tooManyLines.append("{\"id\":").append(i).append(",\"doc\":{}}\n");
      }
      Map<Case, Integer> cases = new java.util.LinkedHashMap<>();
      cases.put(new Case("read", "GET", "/docs/1", null, null, null), 200);
      cases.put(new Case("read", "GET", "/docs/1", null, null, etag), 304);
      cases.put(new Case("read", "GET", "/docs/abc", null, null, null), 400);
      cases.put(new Case("read", "GET", "/docs/999", null, null, null), 404);
      cases.put(new Case("read", "HEAD", "/docs/1", null, null, null), 200);
      cases.put(new Case("read", "HEAD", "/docs/1", null, null, etag), 304);
      cases.put(new Case("read", "HEAD", "/docs/abc", null, null, null), 400);
      cases.put(new Case("read", "HEAD", "/docs/999", null, null, null), 404);
      cases.put(new Case("read", "GET", "/docs?ids=1,2", null, null, null), 200);
      cases.put(new Case("read", "GET", "/docs?ids=x", null, null, null), 400);
      cases.put(new Case("read", "HEAD", "/docs?ids=1", null, null, null), 200);
      cases.put(new Case("read", "HEAD", "/docs?ids=x", null, null, null), 400);
      cases.put(new Case("admin", "PUT", "/docs/2", TOKEN, "{\"b\":2}", null), 200);
      cases.put(new Case("admin", "PUT", "/docs/2", TOKEN, "{not json", null), 400);
      cases.put(new Case("admin", "PUT", "/docs/2", null, "{}", null), 401);
      cases.put(new Case("admin", "PUT", "/docs/2", TOKEN, big, null), 413);
      cases.put(new Case("admin", "DELETE", "/docs/2", TOKEN, null, null), 200);
      cases.put(new Case("admin", "DELETE", "/docs/abc", TOKEN, null, null), 400);
      cases.put(new Case("admin", "DELETE", "/docs/2", null, null, null), 401);
      cases.put(
          new Case("admin", "POST", "/docs/_bulk", TOKEN, "{\"id\":3,\"doc\":{}}\n", null), 200);
      cases.put(new Case("admin", "POST", "/docs/_bulk", null, "{}\n", null), 401);
      cases.put(
          new Case("admin", "POST", "/docs/_bulk", TOKEN, tooManyLines.toString(), null), 413);
      for (String probe : List.of("/healthz", "/readyz", "/metrics")) {
        cases.put(new Case("admin", "GET", probe, null, null, null), 200);
        cases.put(new Case("admin", "HEAD", probe, null, null, null), 200);
      }
      cases.put(new Case("admin", "GET", "/stats", TOKEN, null, null), 200);
      cases.put(new Case("admin", "GET", "/stats", null, null, null), 401);
      cases.put(new Case("admin", "HEAD", "/stats", TOKEN, null, null), 200);
      cases.put(new Case("admin", "HEAD", "/stats", null, null, null), 401);
      for (String file : List.of("/ui", "/ui/app.js", "/ui/style.css")) {
        cases.put(new Case("admin", "GET", file, null, null, null), 200);
        cases.put(new Case("admin", "HEAD", file, null, null, null), 200);
      }
      for (String method : List.of("GET", "HEAD")) {
        cases.put(new Case("admin", method, "/lookup/1", TOKEN, null, null), 200);
        cases.put(new Case("admin", method, "/lookup/abc", TOKEN, null, null), 400);
        cases.put(new Case("admin", method, "/lookup/1", null, null, null), 401);
        cases.put(new Case("admin", method, "/lookup/999", TOKEN, null, null), 404);
      }
      for (String gc : List.of("/admin/gc/pause", "/admin/gc/resume")) {
        cases.put(new Case("admin", "POST", gc, TOKEN, null, null), 200);
        cases.put(new Case("admin", "POST", gc, null, null, null), 401);
      }

      cases.put(new Case("read", "GET", "/cluster", null, null, null), 200);
      cases.put(new Case("read", "GET", "/log-position/0", null, null, null), 404);
      cases.put(new Case("read", "GET", "/log-position/x", null, null, null), 400);

      Set<String> covered = new TreeSet<>();
      // A node without a shard map: /cluster is 404 there.
      assertThat(send(noMap, new Case("read", "GET", "/cluster", null, null, null)).statusCode())
          .isEqualTo(404);
      assertThat(documented).contains("GET /cluster 404");
      covered.add("GET /cluster 404");
      // A node of shard a: a document of shard b's partition is 421 there.
      java.nio.file.Path two = elsewhere.resolve("two.map");
      java.nio.file.Files.writeString(
          two, "partitions 2\nshard a 0 127.0.0.1:7400\nshard b 1 127.0.0.1:7401\n");
      long theirs = 0;
      while (io.docstore.client.KafkaKeys.partitionFor(theirs, 2) != 1) {
        theirs++;
      }
      try (ServiceFixture shardA =
          ServiceFixture.start(
              elsewhere.resolve("shard-a"),
              Map.of(
                  "docstore.cluster.shard-map", two.toString(), "docstore.cluster.shard", "a"))) {
        for (Case c :
            List.of(
                new Case("read", "GET", "/docs/" + theirs, null, null, null),
                new Case("read", "HEAD", "/docs/" + theirs, null, null, null),
                new Case("read", "GET", "/docs?ids=" + theirs, null, null, null))) {
          assertThat(send(shardA, c).statusCode()).as(c.method + " " + c.uri).isEqualTo(421);
          String key = c.method + " " + template(c.port, c.uri) + " 421";
          assertThat(documented).contains(key);
          covered.add(key);
        }
      }
      List<String> wrong = new ArrayList<>();
      for (Map.Entry<Case, Integer> e : cases.entrySet()) {
        Case c = e.getKey();
        String key = c.method + " " + template(c.port, c.uri) + " " + e.getValue();
        int got = send(s, c).statusCode();
        if (got != e.getValue() || !documented.contains(key)) {
          wrong.add(
              key + (got != e.getValue() ? ": the server answered " + got : ": undocumented"));
        }
        covered.add(key);
      }
      assertThat(wrong).as("requests whose answer differs from the description").isEmpty();
      Set<String> unexercised = new TreeSet<>(documented);
      unexercised.removeAll(covered);
      unexercised.removeAll(FAULTS);
      assertThat(unexercised).as("documented responses no request here brings about").isEmpty();

      // The other way: whatever the server serves is documented.
      List<String> undocumented = new ArrayList<>();
      for (String port : List.of("read", "admin")) {
        for (String method : List.of("GET", "HEAD", "PUT", "DELETE", "POST", "PATCH")) {
          for (String uri :
              List.of(
                  "/docs/1",
                  "/docs?ids=1",
                  "/docs",
                  "/docs/_bulk",
                  "/healthz",
                  "/readyz",
                  "/metrics",
                  "/stats",
                  "/ui",
                  "/ui/app.js",
                  "/ui/style.css",
                  "/lookup/1",
                  "/log-position/0",
                  "/admin/gc/pause",
                  "/admin/gc/resume",
                  "/",
                  "/other")) {
            String body =
                method.equals("PUT") ? "{\"c\":3}" : method.equals("POST") ? "{}\n" : null;
            int got = send(s, new Case(port, method, uri, TOKEN, body, null)).statusCode();
            if (got == 404 || got == 405) {
              continue;
            }
            String op = method + " " + template(port, uri);
            if (!port.equals(portOf.get(op)) || !documented.contains(op + " " + got)) {
              undocumented.add(port + " port: " + op + " answered " + got);
            }
          }
        }
      }
      assertThat(undocumented).as("served but not in docs/api/openapi.yaml").isEmpty();
    }
  }
}
