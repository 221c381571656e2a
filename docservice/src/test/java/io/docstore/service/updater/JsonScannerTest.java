package io.docstore.service.updater;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.TestSupport;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link JsonScanner} never accepts what Jackson ({@link UpdateParser}'s own parse) rejects, and
 * when it accepts, the result is the same: for update lines and whole documents, on random input
 * and its random mutations.
 */
class JsonScannerTest {

  private final long seed = TestSupport.seed("JsonScannerTest");
  private final SplittableRandom rnd = new SplittableRandom(seed);
  private final RandomJson json = new RandomJson(rnd);

  private String line() {
    StringBuilder sb = new StringBuilder("{");
    int kind = rnd.nextInt(4);
    String id = rnd.nextInt(10) == 0 ? json.number() : Long.toString(rnd.nextLong(1L << 50));
    if (kind == 0) {
      sb.append("\"id\":").append(id).append(",\"op\":\"delete\"");
    } else {
      sb.append("\"id\":").append(id).append(",\"doc\":").append(json.object(1));
      if (rnd.nextInt(5) == 0) {
        sb.append(",\"op\":\"")
            .append(RandomJson.STRINGS[rnd.nextInt(RandomJson.STRINGS.length)])
            .append('"');
      }
      if (rnd.nextInt(5) == 0) {
        sb.append(",\"")
            .append(RandomJson.KEYS[rnd.nextInt(RandomJson.KEYS.length)])
            .append("\":")
            .append(json.value(1));
      }
    }
    return sb.append(rnd.nextInt(5) == 0 ? " }  " : "}").toString();
  }

  @Test
  void acceptsOnlyWhatJacksonAcceptsAndAgrees() {
    UpdateParser jackson = new UpdateParser(200);
    JsonScanner fast = new JsonScanner(200);
    int fastAccepted = 0;
    int valid = 0;
    for (int i = 0; i < 50_000; i++) {
      byte[] line = line().getBytes(StandardCharsets.UTF_8);
      if (i % 2 == 1) {
        line = json.mutate(line);
      }
      int pad = rnd.nextInt(3);
      byte[] buf = new byte[line.length + 2 * pad];
      System.arraycopy(line, 0, buf, pad, line.length);
      UpdateParser.Slice expected;
      try {
        expected = jackson.parseSliceWithJackson(buf, pad, line.length);
        valid++;
      } catch (InvalidUpdateException e) {
        expected = null;
      }
      UpdateParser.Slice got = fast.line(buf, pad, line.length);
      if (got != null) {
        fastAccepted++;
        assertThat(got)
            .as("line %s, seed %d", new String(line, StandardCharsets.UTF_8), seed)
            .isEqualTo(expected);
      }
    }
    assertThat(fastAccepted)
        .as("the fast path answers most valid lines, seed %d", seed)
        .isGreaterThan(valid / 2);
  }

  @Test
  void acceptsTheBenchmarksJobDocuments() throws Exception {
    String doc =
        "{\"title\":\"Senior Software Engineer\",\"company\":\"Globex\",\"salary\":{\"min\":90000,\"max\":120000},"
            + "\"tags\":[\"remote\",\"full time\"],\"discovered_at\":1732400000000,\"desc\":\"we are looking \\u00e9\"}";
    byte[] line = ("{\"id\":42,\"doc\":" + doc + "}").getBytes(StandardCharsets.UTF_8);
    UpdateParser.Slice s = new JsonScanner(4096).line(line, 0, line.length);
    assertThat(s).isEqualTo(new UpdateParser(4096).parseSliceWithJackson(line, 0, line.length));
    assertThat(s.discoveredAtMillis()).isEqualTo(1732400000000L);
    byte[] d = doc.getBytes(StandardCharsets.UTF_8);
    assertThat(new JsonScanner(4096).document(d, 0, d.length)).isEqualTo(1732400000000L);
  }

  @Test
  void documentsAcceptsOnlyWhatJacksonAcceptsAndAgrees() {
    UpdateParser jackson = new UpdateParser(1 << 20);
    JsonScanner fast = new JsonScanner(1 << 20);
    int fastAccepted = 0;
    int valid = 0;
    for (int i = 0; i < 50_000; i++) {
      String doc = json.object(1);
      if (rnd.nextInt(8) == 0) {
        doc = rnd.nextBoolean() ? " " + doc + "\n" : doc + " x";
      }
      byte[] d = doc.getBytes(StandardCharsets.UTF_8);
      if (i % 2 == 1) {
        d = json.mutate(d);
      }
      Long expected;
      try {
        expected = jackson.validateDocumentWithJackson(d, 0, d.length);
        valid++;
      } catch (InvalidUpdateException e) {
        expected = null;
      }
      long got = fast.document(d, 0, d.length);
      if (got != JsonScanner.UNSURE) {
        fastAccepted++;
        assertThat(got)
            .as("document %s, seed %d", new String(d, StandardCharsets.UTF_8), seed)
            .isEqualTo(expected);
      }
    }
    assertThat(fastAccepted)
        .as("the fast path answers most valid documents, seed %d", seed)
        .isGreaterThan(valid / 2);
  }
}
