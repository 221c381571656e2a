package io.docstore.service.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.docstore.service.ServiceFixture;
import io.docstore.service.testing.Chromium;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin page ({@code /ui}) in a real headless Chromium against a real server with an admin
 * token: without the token it shows no data; once the token is typed in, its figures are filled,
 * its charts follow the traffic, and the lookup box shows a document's JSON, sequence and size; a
 * document holding markup is shown as text and runs nothing. Saves what it saw after the first
 * lookup as {@code target/admin-ui.png}.
 */
class AdminPageBrowserTest {

  private static final String TOKEN = "s3cret";

  /** Nested, with a string holding ", :" and an integer no JavaScript number holds exactly. */
  private static final String JOB =
      "{\"title\":\"Line Cook\",\"location\":\"Austin, TX: downtown\","
          + "\"salary\":{\"min\":30000,\"max\":45000},\"tags\":[\"kitchen\",\"full-time\"],"
          + "\"big\":12345678901234567890,\"none\":{}}";

  private static final String JOB_PRETTY =
      """
      {
        "title": "Line Cook",
        "location": "Austin, TX: downtown",
        "salary": {
          "min": 30000,
          "max": 45000
        },
        "tags": [
          "kitchen",
          "full-time"
        ],
        "big": 12345678901234567890,
        "none": {}
      }"""
          .stripIndent();

  /** Markup that runs if inserted as HTML (the unquoted handler even past JSON's escaping). */
  private static final String HOSTILE =
      "{\"a\":\"<script>window.__pwned=1</script>\","
          + "\"b\":\"<img src=x onerror=\\\"window.__pwned=1\\\">\","
          + "\"c\":\"<img src=x onerror=window.__pwned=1>\"}";

  @TempDir Path dir;

  private Chromium chromium;

  @AfterEach
  void stopChromium() {
    if (chromium != null) {
      chromium.close();
    }
  }

  @Test
  void figuresChartsAndLookupsWithTheTokenAndDocumentsShownAsText() throws Exception {
    assumeTrue(
        Chromium.program().isPresent(),
        "chromium is not installed (scripts/install-deps installs it)");
    try (ServiceFixture s =
        ServiceFixture.start(dir.resolve("data"), Map.of("docstore.http.admin.token", TOKEN))) {
      long jobSeq = seq(put(s, 1, JOB));
      put(s, 2, HOSTILE);
      put(s, 3, "{\"title\":\"Dishwasher\"}");
      chromium = Chromium.start(dir.resolve("chromium"));
      chromium.open(s.service.adminUrl() + "/ui");

      // No token yet: the page asks for it and shows nothing of the store.
      chromium.waitUntil(
          "!document.getElementById('token-form').hidden"
              + " && document.querySelector('#rate-legend li') !== null");
      assertThat(chromium.text("document.getElementById('figures').textContent")).isEmpty();
      chromium.type("#lookup-id", "1");
      chromium.click("#lookup-form button");
      chromium.waitUntil(
          "document.getElementById('lookup-status').textContent === 'the admin token is needed'");
      assertThat(chromium.text("document.getElementById('lookup-doc').textContent")).isEmpty();

      chromium.type("#token", TOKEN);
      chromium.click("#token-form button");
      chromium.waitUntil("document.getElementById('token-form').hidden");
      chromium.waitUntil(figure("documents") + " === '3'");
      for (String f : List.of("segments", "index files", "queue bytes", "cache hit ratio")) {
        assertThat(chromium.text(figure(f))).as(f).isNotBlank().isNotEqualTo("—");
      }
      assertThat(chromium.text(figure("last sequence"))).isEqualTo("3");
      assertThat(chromium.text(figure("cache hit ratio"))).endsWith(" %");

      // Reads on the read port show in the live charts.
      AtomicBoolean reading = new AtomicBoolean(true);
      Thread reader =
          new Thread(
              () -> {
                try {
                  while (reading.get()) {
                    s.get("/docs/" + (1 + (System.nanoTime() & 3)));
                  }
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      reader.start();
      try {
        chromium.waitUntil(
            "Number(document.getElementById('rate-chart').dataset.samples) >= 3"
                + " && parseFloat(document.querySelector('#rate-legend [data-series=reads]')"
                + ".textContent.split(' ')[1]) > 0"
                + " && /read p99 [0-9.]+ ms/.test(document.getElementById('latency-legend')"
                + ".textContent)");
      } finally {
        reading.set(false);
        reader.join();
      }

      // A lookup shows the document exactly as stored, laid out, with its sequence and size.
      chromium.type("#lookup-id", "1");
      chromium.click("#lookup-form button");
      chromium.waitUntil("document.getElementById('lookup-doc').textContent !== ''");
      assertThat(chromium.text("document.getElementById('lookup-doc').textContent"))
          .isEqualTo(JOB_PRETTY);
      assertThat(chromium.text(meta("sequence"))).isEqualTo(Long.toString(jobSeq));
      assertThat(chromium.text(meta("size"))).isEqualTo(JOB.length() + " bytes");
      chromium.screenshot(Path.of("target", "admin-ui.png"));

      // Markup in a document is text: no element is made of it and nothing runs.
      chromium.type("#lookup-id", "2");
      chromium.click("#lookup-form button");
      chromium.waitUntil(meta("ID") + " === '2'");
      String shown = chromium.text("document.getElementById('lookup-doc').textContent");
      assertThat(shown)
          .contains("\"<script>window.__pwned=1</script>\"")
          .contains("<img src=x onerror=\\\"window.__pwned=1\\\">")
          .contains("<img src=x onerror=window.__pwned=1>");
      assertThat(chromium.eval("document.querySelectorAll('#lookup-doc *').length").asInt())
          .isZero();
      // An image's error handler would run once its load failed: give it the time.
      Thread.sleep(1000);
      assertThat(chromium.text("typeof window.__pwned")).isEqualTo("undefined");

      chromium.type("#lookup-id", "99");
      chromium.click("#lookup-form button");
      chromium.waitUntil(
          "document.getElementById('lookup-status').textContent === 'document 99 not found'");
      assertThat(chromium.text("document.getElementById('lookup-doc').textContent")).isEmpty();
      assertThat(chromium.pageErrors()).as("uncaught exceptions in the page").isEmpty();
    }
  }

  private static String figure(String label) {
    return "(document.querySelector('#figures [data-figure=\"" + label + "\"]') || {}).textContent";
  }

  private static String meta(String label) {
    return "(document.querySelector('#lookup-meta [data-meta=\""
        + label
        + "\"]') || {})"
        + ".textContent";
  }

  private static HttpResponse<String> put(ServiceFixture s, long id, String json) throws Exception {
    HttpResponse<String> r =
        s.send(
            java.net.http.HttpRequest.newBuilder(s.admin("/docs/" + id))
                .header("Authorization", "Bearer " + TOKEN)
                .PUT(java.net.http.HttpRequest.BodyPublishers.ofString(json))
                .build());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return r;
  }

  private static long seq(HttpResponse<String> written) {
    String b = written.body();
    return Long.parseLong(b.substring(b.indexOf("\"seq\":") + 6, b.indexOf('}')));
  }
}
