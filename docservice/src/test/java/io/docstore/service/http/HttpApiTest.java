package io.docstore.service.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.client.Document;
import io.docstore.service.DocStore;
import io.docstore.service.DocumentSource;
import io.docstore.service.ServiceFixture;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every endpoint and status code of the read and admin ports, over real sockets. */
class HttpApiTest {

  /** A pooled allocator, as the channel passes one. */
  private static final io.netty.buffer.ByteBufAllocator ALLOC =
      io.netty.buffer.PooledByteBufAllocator.DEFAULT;

  @TempDir Path dir;
  ServiceFixture s;

  @BeforeEach
  void start() throws Exception {
    s = ServiceFixture.start(dir, Map.of("docstore.queue.max-body", "4K"));
  }

  @AfterEach
  void stop() throws Exception {
    s.close();
  }

  @Test
  void putThenGetIsByteExactWithETagAnd304() throws Exception {
    String doc = "{\"title\":\"Engineer\",  \"n\":1.50, \"u\":\"\\u00e9\"}";
    HttpResponse<String> put = s.put(42, doc);
    assertThat(put.statusCode()).isEqualTo(200);
    assertThat(put.body()).matches("\\{\"id\":42,\"seq\":\\d+\\}");
    String seq = put.body().replaceAll(".*\"seq\":(\\d+).*", "$1");

    HttpResponse<String> get = s.get("/docs/42");
    assertThat(get.statusCode()).isEqualTo(200);
    assertThat(get.body()).isEqualTo(doc);
    assertThat(get.headers().firstValue("content-type")).hasValue("application/json");
    assertThat(get.headers().firstValue("etag")).hasValue("\"" + seq + "\"");

    HttpResponse<String> notModified =
        s.send(
            HttpRequest.newBuilder(s.read("/docs/42"))
                .header("If-None-Match", "\"" + seq + "\"")
                .build());
    assertThat(notModified.statusCode()).isEqualTo(304);
    assertThat(notModified.body()).isEmpty();

    assertThat(s.put(42, "{}").statusCode()).isEqualTo(200);
    HttpResponse<String> stale =
        s.send(
            HttpRequest.newBuilder(s.read("/docs/42"))
                .header("If-None-Match", "W/\"" + seq + "\", \"0\"")
                .build());
    assertThat(stale.statusCode()).isEqualTo(200);
    assertThat(stale.body()).isEqualTo("{}");

    HttpResponse<String> head =
        s.send(
            HttpRequest.newBuilder(s.read("/docs/42"))
                .method("HEAD", HttpRequest.BodyPublishers.noBody())
                .build());
    assertThat(head.statusCode()).isEqualTo(200);
    assertThat(head.body()).isEmpty();
    assertThat(head.headers().firstValue("content-length")).hasValue("2");
  }

  @Test
  void absentAndDeletedAre404() throws Exception {
    assertThat(s.get("/docs/7").statusCode()).isEqualTo(404);
    s.put(7, "{\"a\":1}");
    HttpResponse<String> del = s.delete(7);
    assertThat(del.statusCode()).isEqualTo(200);
    assertThat(del.body()).matches("\\{\"id\":7,\"seq\":\\d+\\}");
    HttpResponse<String> get = s.get("/docs/7");
    assertThat(get.statusCode()).isEqualTo(404);
    assertThat(get.body()).contains("not found");
  }

  @Test
  void multiGetReportsFoundAndMissingDeduplicated() throws Exception {
    s.put(1, "{\"one\":1}");
    s.put(3, "{\"three\":3}");
    HttpResponse<String> r = s.get("/docs?ids=1,2,3,1,2");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body())
        .isEqualTo("{\"found\":{\"1\":{\"one\":1},\"3\":{\"three\":3}},\"missing\":[2]}");
    assertThat(s.get("/docs?ids=5").body()).isEqualTo("{\"found\":{},\"missing\":[5]}");
  }

  @Test
  void multiGetLimits() throws Exception {
    String thousand =
        LongStream.range(0, 1000).mapToObj(Long::toString).collect(Collectors.joining(","));
    assertThat(s.get("/docs?ids=" + thousand).statusCode()).isEqualTo(200);
    assertThat(s.get("/docs?ids=" + thousand + ",1,2,3").statusCode()).isEqualTo(200);
    HttpResponse<String> tooMany = s.get("/docs?ids=" + thousand + ",1000");
    assertThat(tooMany.statusCode()).isEqualTo(400);
    assertThat(tooMany.body()).contains("too many IDs");
    assertThat(s.get("/docs").statusCode()).isEqualTo(400);
    assertThat(s.get("/docs?ids=1,,2").statusCode()).isEqualTo(400);
    assertThat(s.get("/docs?ids=1,x").statusCode()).isEqualTo(400);
  }

  @Test
  void malformedIdsAre400() throws Exception {
    for (String id :
        new String[] {
          "abc",
          "-1",
          "%2D1",
          "1.5",
          "+1",
          "9223372036854775808",
          "99999999999999999999999",
          "1%00",
          "0x10"
        }) {
      HttpResponse<String> r = s.get("/docs/" + id);
      assertThat(r.statusCode()).as(id).isEqualTo(400);
      assertThat(r.body()).as(id).contains("error");
    }
    assertThat(s.get("/docs/9223372036854775807").statusCode()).isEqualTo(404);
  }

  @Test
  void unknownPathsAre404AndWritesOnTheReadPortAre405() throws Exception {
    assertThat(s.get("/").statusCode()).isEqualTo(404);
    assertThat(s.get("/etc/passwd").statusCode()).isEqualTo(404);
    HttpResponse<String> put =
        s.send(
            HttpRequest.newBuilder(s.read("/docs/1"))
                .PUT(HttpRequest.BodyPublishers.ofString("{}"))
                .build());
    assertThat(put.statusCode()).isEqualTo(405);
    assertThat(put.headers().firstValue("allow")).hasValue("GET, HEAD");
    HttpResponse<String> del = s.send(HttpRequest.newBuilder(s.read("/docs/1")).DELETE().build());
    assertThat(del.statusCode()).isEqualTo(405);
    HttpResponse<String> bulk =
        s.send(
            HttpRequest.newBuilder(s.read("/docs/_bulk"))
                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                .build());
    assertThat(bulk.statusCode()).isIn(400, 405);
    assertThat(s.service.store().lastSequence()).isZero();
    HttpResponse<String> adminPost =
        s.send(
            HttpRequest.newBuilder(s.admin("/docs/1"))
                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                .build());
    assertThat(adminPost.statusCode()).isEqualTo(405);
  }

  @Test
  void invalidDocumentsAre400AndOversizedAre413() throws Exception {
    for (String bad :
        new String[] {"", "{", "[1,2]", "\"str\"", "{\"a\":1} trailing", "{\"a\":}", "nul"}) {
      HttpResponse<String> r = s.put(1, bad);
      assertThat(r.statusCode()).as(bad).isEqualTo(400);
      assertThat(r.body()).as(bad).contains("error");
    }
    HttpResponse<String> big = s.put(1, "{\"a\":\"" + "x".repeat(5000) + "\"}");
    assertThat(big.statusCode()).isEqualTo(413);
    assertThat(s.put(-1, "{}").statusCode()).isEqualTo(400);
    assertThat(s.put(Long.MAX_VALUE, "{}").statusCode()).isEqualTo(200);
    assertThat(s.service.store().lastSequence()).isEqualTo(1);
  }

  @Test
  void bulkReportsEveryLineAndAppliesTheValidOnes() throws Exception {
    String body =
        String.join(
                "\n",
                "{\"id\":1,\"doc\":{\"a\":1}}",
                "{\"id\":2,\"doc\":{\"b\":[1,2,{\"c\":null}]},\"ignored\":true}",
                "not json",
                "{\"id\":-3,\"doc\":{}}",
                "{\"id\":99999999999999999999,\"doc\":{}}",
                "{\"id\":\"4\",\"doc\":{}}",
                "",
                "{\"id\":1,\"op\":\"delete\"}",
                "{\"doc\":{}}",
                "{\"id\":5,\"doc\":[]}")
            + "\n";
    HttpResponse<String> r =
        s.send(
            HttpRequest.newBuilder(s.admin("/docs/_bulk"))
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build());
    assertThat(r.statusCode()).isEqualTo(200);
    String[] lines = r.body().split("\n");
    assertThat(lines).hasSize(9);
    assertThat(lines[0]).matches("\\{\"line\":1,\"id\":1,\"seq\":\\d+\\}");
    assertThat(lines[1]).matches("\\{\"line\":2,\"id\":2,\"seq\":\\d+\\}");
    assertThat(lines[2]).startsWith("{\"line\":3,\"status\":400,\"error\":\"invalid JSON");
    assertThat(lines[3]).contains("\"line\":4").contains("non-negative");
    assertThat(lines[4]).contains("\"line\":5").contains("out of range");
    assertThat(lines[5]).contains("\"line\":6").contains("integer");
    assertThat(lines[6]).matches("\\{\"line\":8,\"id\":1,\"seq\":\\d+\\}");
    assertThat(lines[7]).contains("\"line\":9").contains("missing \\\"id\\\"");
    assertThat(lines[8]).contains("\"line\":10").contains("JSON object");
    assertThat(s.get("/docs/2").body()).isEqualTo("{\"b\":[1,2,{\"c\":null}]}");
    assertThat(s.get("/docs/1").statusCode()).isEqualTo(404);
    assertThat(s.service.store().lastSequence()).isEqualTo(3);
  }

  /**
   * A multi-get whose documents add up to more than the response cap is refused, with the reason;
   * smaller ones pass.
   */
  @Test
  void aMultiGetOverTheResponseCapIs400() throws Exception {
    String pad = "x".repeat(3_000);
    for (int id = 0; id < 10; id++) {
      assertThat(s.put(100 + id, "{\"n\":" + id + ",\"pad\":\"" + pad + "\"}").statusCode())
          .isEqualTo(200);
    }
    ReadRoutes routes = new ReadRoutes(s.service.store(), 100, 20_000);
    FullHttpResponse six =
        routes.handle(request(HttpMethod.GET, "/docs?ids=100,101,102,103,104,105"));
    try {
      assertThat(six.status().code()).isEqualTo(200);
      assertThat(six.content().toString(StandardCharsets.UTF_8))
          .contains("\"105\":{\"n\":5,")
          .endsWith("},\"missing\":[]}");
    } finally {
      six.release();
    }
    FullHttpResponse ten =
        routes.handle(
            request(HttpMethod.GET, "/docs?ids=100,101,102,103,104,105,106,107,108,109,5"));
    try {
      assertThat(ten.status().code()).isEqualTo(400);
      assertThat(ten.content().toString(StandardCharsets.UTF_8))
          .contains("http.max-response-bytes")
          .contains("fewer IDs");
    } finally {
      ten.release();
    }
  }

  @Test
  void cachedDocumentsAreAnsweredOnTheNetworkThreadAndMissesOnlyWhileReadsAreInMemory()
      throws Exception {
    s.put(7, "{\"a\":7}");
    DocStore store = s.service.store();
    ReadRoutes routes = new ReadRoutes(store, 10);
    FullHttpResponse fast = routes.handleWithoutBlocking(request(HttpMethod.GET, "/docs/7"), ALLOC);
    assertThat(fast).as("a document cached by its write is answered without a worker").isNotNull();
    try {
      HttpResponse<String> viaWorker = s.get("/docs/7");
      assertThat(fast.status().code()).isEqualTo(200);
      assertThat(fast.content().toString(StandardCharsets.UTF_8))
          .isEqualTo(viaWorker.body())
          .isEqualTo("{\"a\":7}");
      assertThat(fast.headers().get(HttpHeaderNames.ETAG))
          .isEqualTo(viaWorker.headers().firstValue("etag").orElseThrow());
    } finally {
      fast.release();
    }
    FullHttpRequest conditional = request(HttpMethod.GET, "/docs/7");
    conditional.headers().set(HttpHeaderNames.IF_NONE_MATCH, "\"" + store.lastSequence() + "\"");
    FullHttpResponse notModified = routes.handleWithoutBlocking(conditional, ALLOC);
    assertThat(notModified.status().code()).isEqualTo(304);
    notModified.release();
    // Multi-gets, queries, bad IDs and other methods always go to a worker.
    for (String uri : new String[] {"/docs?ids=7", "/docs/7?x=1", "/docs/abc", "/nope"}) {
      assertThat(routes.handleWithoutBlocking(request(HttpMethod.GET, uri), ALLOC))
          .as(uri)
          .isNull();
    }
    assertThat(routes.handleWithoutBlocking(request(HttpMethod.POST, "/docs/7"), ALLOC)).isNull();
    // A miss is read on the network thread while the store's reads find their pages in memory (a
    // small store just written is), and goes to a worker when the source cannot say so.
    assertThat(store.readsInMemory()).isTrue();
    FullHttpResponse absent =
        routes.handleWithoutBlocking(request(HttpMethod.GET, "/docs/8"), ALLOC);
    assertThat(absent.status().code()).isEqualTo(404);
    absent.release();
    ReadRoutes mayBlock =
        new ReadRoutes(
            new DocumentSource() {
              @Override
              public Document get(long id) throws java.io.IOException {
                return store.get(id);
              }

              @Override
              public Document[] getAll(long[] ids) throws java.io.IOException {
                return store.getAll(ids);
              }
            },
            10);
    assertThat(mayBlock.handleWithoutBlocking(request(HttpMethod.GET, "/docs/7"), ALLOC)).isNull();
    s.delete(7);
    FullHttpResponse deleted =
        routes.handleWithoutBlocking(request(HttpMethod.GET, "/docs/7"), ALLOC);
    assertThat(deleted.status().code()).as("deleted").isEqualTo(404);
    deleted.release();
    assertThat(s.get("/docs/7").statusCode()).isEqualTo(404);
  }

  private static FullHttpRequest request(HttpMethod method, String uri) {
    return new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, uri);
  }

  @Test
  void gcPausesAreExportedWithPercentiles() throws Exception {
    System.gc(); // a collection the GC listener hears of (asynchronously)
    String body = "";
    for (int i = 0; i < 100 && !body.contains("jvm_gc_pause_seconds{"); i++) {
      Thread.sleep(50);
      body = s.adminGet("/metrics").body();
    }
    assertThat(body)
        .contains("jvm_gc_pause_seconds_count{")
        .contains("quantile=\"0.99\"")
        .contains("jvm_gc_pause_seconds_max{");
  }

  @Test
  void opsEndpoints() throws Exception {
    s.put(1, "{\"discovered_at\":" + (System.currentTimeMillis() - 50) + "}");
    s.get("/docs/1");
    // Meters must not hang on objects only they reference (Micrometer holds them weakly: NaN after
    // a GC).
    System.gc();
    HttpResponse<String> metrics = s.adminGet("/metrics");
    assertThat(metrics.statusCode()).isEqualTo(200);
    assertThat(metrics.headers().firstValue("content-type").orElse("")).startsWith("text/plain");
    assertThat(metrics.body())
        .contains("docstore_writes_total{op=\"put\"} 1.0")
        .contains("docstore_reads_total")
        .contains("docstore_freshness_accepted_to_readable_seconds_count 1")
        .contains("docstore_freshness_discovered_to_readable_seconds_count 1")
        .contains("jvm_memory_used_bytes")
        .contains("docstore_queue_appends_total 1.0")
        .contains("docstore_queue_fsyncs_total")
        .contains("docstore_index_bloom_answers_total{answer=\"no\"}")
        .contains("docstore_index_compaction_bytes_written_total")
        .contains("docstore_index_runs ")
        .contains("docstore_index_page_cache_hits_total")
        .contains("docstore_index_page_cache_capacity_bytes 2.68435456E8")
        .contains("docstore_queue_block_cache_misses_total")
        .contains("docstore_queue_block_reads_mapped_total")
        .contains("docstore_queue_block_reads_mapped_cold_total")
        .contains("docstore_index_background_work ");
    assertThat(s.adminGet("/healthz").body()).contains("up");
    assertThat(s.adminGet("/readyz").statusCode()).isEqualTo(200);
    HttpResponse<String> stats = s.adminGet("/stats");
    assertThat(stats.statusCode()).isEqualTo(200);
    assertThat(stats.body())
        .contains("\"lastSequence\":1")
        .contains("\"queue\":{")
        .contains("\"index\":{")
        .contains("\"cacheHitRatio\"");
    assertThat(s.adminGet("/nope").statusCode()).isEqualTo(404);
    HttpResponse<String> postMetrics =
        s.send(
            HttpRequest.newBuilder(s.admin("/metrics"))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build());
    assertThat(postMetrics.statusCode()).isEqualTo(405);
  }
}
