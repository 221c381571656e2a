package io.docstore.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.client.Document;
import io.docstore.service.DocStore;
import io.docstore.service.DocStoreOptions;
import io.docstore.service.cache.OffHeapDocCache;
import io.docstore.service.torture.ServeJvm;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** serve, import, get and stats as a user runs them. */
class CliCommandsTest {

  @TempDir Path dir;

  /** Runs the CLI in-process, returning exit code and captured stdout. */
  /** Runs a command: its exit code, standard output and standard error. */
  private static String[] run(String... args) {
    PrintStream old = System.out;
    PrintStream oldErr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    int code;
    try {
      code = Main.run(args);
    } finally {
      System.setOut(old);
      System.setErr(oldErr);
    }
    return new String[] {
      Integer.toString(code),
      out.toString(StandardCharsets.UTF_8),
      err.toString(StandardCharsets.UTF_8)
    };
  }

  /** NDJSON lines {"id":i,"doc":{"n":i}} for i in 0..n-1. */
  private static StringBuilder docs(int n) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < n; i++) {
      b.append("{\"id\":").append(i).append(",\"doc\":{\"n\":").append(i).append("}}\n");
    }
    return b;
  }

  /** 500 documents, one invalid line and a delete of id 7, in {@code in.ndjson}. */
  private Path mixedInput() throws IOException {
    Path file = dir.resolve("in.ndjson");
    StringBuilder b = docs(500);
    b.append("{\"id\":\"bad\"}\n{\"id\":7,\"op\":\"delete\"}\n");
    Files.writeString(file, b);
    return file;
  }

  @Test
  void importThenGetAndStatsOffline() throws Exception {
    Path data = dir.resolve("data");
    Path file = mixedInput();
    String[] r = run("import", file.toString(), "--data", data.toString(), "--batch", "64");
    assertThat(r[0]).isEqualTo("1");
    assertThat(r[1])
        .contains("imported 501 updates")
        .contains("1 invalid lines")
        .contains("last sequence 501");

    r = run("get", "42", "--data", data.toString());
    assertThat(r[0]).isEqualTo("0");
    assertThat(r[1].trim()).isEqualTo("{\"n\":42}");
    assertThat(run("get", "7", "--data", data.toString())[0]).isEqualTo("1");

    r = run("stats", "--data", data.toString());
    assertThat(r[0]).isEqualTo("0");
    assertThat(r[1]).contains("\"lastSequence\" : 501");
    assertThat(
            run("import", dir.resolve("missing.ndjson").toString(), "--data", data.toString())[0])
        .isEqualTo("2");
  }

  @Test
  void rebuildIndexRepairsADamagedIndexTablePageThatVerifyReported() throws Exception {
    Path data = dir.resolve("data");
    Path file = dir.resolve("in.ndjson");
    Files.writeString(file, docs(20_000));
    assertThat(run("import", "--bulk", file.toString(), "--data", data.toString())[0])
        .isEqualTo("0");
    Path table;
    try (var s = Files.list(data.resolve("index"))) {
      table = s.filter(p -> p.toString().endsWith(".idx")).findFirst().orElseThrow();
    }
    try (var ch =
        java.nio.channels.FileChannel.open(
            table, java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE)) {
      var one = java.nio.ByteBuffer.allocate(1);
      long pos = ch.size() / 2;
      ch.read(one, pos);
      one.put(0, (byte) (one.get(0) ^ 0x04));
      ch.write(one.rewind(), pos);
    }
    String[] v = run("verify", data.toString());
    assertThat(v[0]).isEqualTo("1");
    assertThat(v[1]).contains(table.getFileName().toString());
    // A read-only command reads every page (to count live records) and says what to do; it does not
    // repair (serve would: it rebuilds a damaged index from the queue at open).
    String[] offline = run("get", "12345", "--data", data.toString());
    assertThat(offline[0]).as(offline[1]).isNotEqualTo("0");
    assertThat(offline[2]).contains(table.getFileName().toString()).contains("rebuild-index");

    String[] r = run("rebuild-index", "--data", data.toString());
    assertThat(r[0]).as(r[1]).isEqualTo("0");
    assertThat(r[1]).contains("indexed 20000 queue records").contains("index.damaged-");
    v = run("verify", data.toString());
    assertThat(v[0]).as(v[1]).isEqualTo("0");
    assertThat(readAll(data)).as("every document reads back after the rebuild").isZero();
    String[] g = run("get", "12345", "--data", data.toString());
    assertThat(g[1].trim()).isEqualTo("{\"n\":12345}");
  }

  /** Reads ids 0..19,999 of the bulk import above; returns how many failed or differed. */
  private static int readAll(Path data) throws IOException {
    int failed = 0;
    try (DocStore s =
        DocStore.open(data, DocStoreOptions.builder(new OffHeapDocCache(1 << 20)).build())) {
      for (int i = 0; i < 20_000; i++) {
        try {
          Document d = s.get(i);
          failed +=
              d != null && new String(d.body(), StandardCharsets.UTF_8).equals("{\"n\":" + i + "}")
                  ? 0
                  : 1;
        } catch (io.docstore.io.CorruptionException e) {
          failed++;
        }
      }
    }
    return failed;
  }

  @Test
  void bulkImportThenGetOffline() throws Exception {
    Path data = dir.resolve("data");
    Path file = mixedInput();
    String[] r =
        run("import", "--bulk", "--threads", "2", file.toString(), "--data", data.toString());
    assertThat(r[0]).isEqualTo("1");
    assertThat(r[1])
        .contains("bulk-loaded 501 updates")
        .contains("1 invalid lines")
        .contains("last sequence 501");
    r = run("get", "42", "--data", data.toString());
    assertThat(r[0]).isEqualTo("0");
    assertThat(r[1].trim()).isEqualTo("{\"n\":42}");
    assertThat(run("get", "7", "--data", data.toString())[0]).isEqualTo("1");
    assertThat(run("import", "--threads", "2", file.toString(), "--data", data.toString())[0])
        .isEqualTo("2");
  }

  @Test
  void badConfigurationFailsFastWithExit2() throws Exception {
    Path conf = dir.resolve("bad.conf");
    Files.writeString(conf, "docstore.http.read.port = -1");
    assertThat(run("serve", "--config", conf.toString(), "--data", dir.toString())[0])
        .isEqualTo("2");
    assertThat(run("serve", "--config", dir.resolve("nope.conf").toString())[0]).isEqualTo("2");
  }

  @Test
  void serveAnswersTheCliAndStopsGracefullyOnSigterm() throws Exception {
    Path data = dir.resolve("data");
    HttpClient http = HttpClient.newHttpClient();
    try (ServeJvm serve = ServeJvm.start(data, dir.resolve("serve.log"), List.of())) {
      for (int i = 0; i < 20; i++) {
        HttpResponse<String> put =
            http.send(
                HttpRequest.newBuilder(URI.create(serve.adminUrl + "/docs/" + i))
                    .PUT(HttpRequest.BodyPublishers.ofString("{\"i\":" + i + "}"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(put.statusCode()).isEqualTo(200);
      }
      String[] r = run("get", "5", "--server", serve.readUrl.replace("http://", ""));
      assertThat(r[0]).isEqualTo("0");
      assertThat(r[1].trim()).isEqualTo("{\"i\":5}");
      r = run("stats", "--server", serve.adminUrl.replace("http://", ""));
      assertThat(r[0]).isEqualTo("0");
      assertThat(r[1]).contains("\"lastSequence\":20");
      assertThat(
              http.send(
                      HttpRequest.newBuilder(URI.create(serve.adminUrl + "/readyz")).build(),
                      HttpResponse.BodyHandlers.ofString())
                  .statusCode())
          .isEqualTo(200);

      serve.process.destroy(); // SIGTERM
      assertThat(serve.process.waitFor(30, TimeUnit.SECONDS))
          .as("stopped within the shutdown timeout")
          .isTrue();
    }
    // The graceful stop synced the index and wrote a final checkpoint: nothing to re-index.
    try (DocStore s =
        DocStore.open(data, DocStoreOptions.builder(new OffHeapDocCache(64L << 20)).build())) {
      assertThat(s.lastSequence()).isEqualTo(20);
      assertThat(s.checkpointedThrough()).isEqualTo(20);
      assertThat(new String(s.get(19).body(), StandardCharsets.UTF_8)).isEqualTo("{\"i\":19}");
    }
  }
}
