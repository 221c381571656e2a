package io.docstore.service.bulk;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.TestSupport;
import io.docstore.service.updater.InvalidUpdateException;
import io.docstore.service.updater.UpdateParser;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link BulkLineScanner} never accepts what {@link UpdateParser#parseSlice} (Jackson) rejects, and
 * when it accepts, the result is the same; on random lines and their random mutations.
 */
class BulkLineScannerTest {

  private static final String[] KEYS = {
    "id", "op", "doc", "discovered_at", "x", "a\\u0062", "\u00e9t\u00e9", "", "id "
  };
  private static final String[] STRINGS = {
    "",
    "abc",
    "d\\\"q",
    "\\u00e9",
    "\\ud800",
    "\u00e9\u4e2d\ud83d\ude00",
    "tab\\t",
    "put",
    "delete",
    "\\/",
    // longer than the scanner's eight-byte steps, with escapes and non-ASCII at several offsets
    "0123456789abcdef\\n0123456789",
    "plain text of thirty-one bytes\\\"",
    "seventeen bytes!!\u00e9 and more",
    "x\\u0041yz 12345678"
  };

  private final SplittableRandom rnd;
  private final long seed = TestSupport.seed("BulkLineScannerTest");

  BulkLineScannerTest() {
    rnd = new SplittableRandom(seed);
  }

  private String number() {
    return switch (rnd.nextInt(8)) {
      case 0 -> "0";
      case 1 -> "-" + rnd.nextInt(1000);
      case 2 -> rnd.nextInt(1000) + "." + rnd.nextInt(100);
      case 3 -> rnd.nextInt(10) + "e" + (rnd.nextBoolean() ? "-" : "+") + rnd.nextInt(5);
      case 4 -> "12345678901234567890123";
      case 5 -> Long.toString(rnd.nextLong(Long.MAX_VALUE));
      default -> Long.toString(rnd.nextLong(1L << 40));
    };
  }

  private String value(int depth) {
    int r = rnd.nextInt(depth > 3 ? 5 : 8);
    return switch (r) {
      case 0 -> number();
      case 1 -> "\"" + STRINGS[rnd.nextInt(STRINGS.length)] + "\"";
      case 2 -> "true";
      case 3 -> "null";
      case 4 -> "false";
      case 5 -> object(depth + 1);
      default -> {
        StringBuilder sb = new StringBuilder("[");
        for (int i = rnd.nextInt(4); i > 0; i--) {
          sb.append(value(depth + 1)).append(i > 1 ? "," : "");
        }
        yield sb.append("]").toString();
      }
    };
  }

  private String object(int depth) {
    StringBuilder sb = new StringBuilder("{");
    for (int i = rnd.nextInt(5); i > 0; i--) {
      sb.append(rnd.nextInt(4) == 0 ? " " : "")
          .append('"')
          .append(KEYS[rnd.nextInt(KEYS.length)])
          .append("\":")
          .append(value(depth))
          .append(i > 1 ? "," : "");
    }
    return sb.append("}").toString();
  }

  private String line() {
    StringBuilder sb = new StringBuilder("{");
    int kind = rnd.nextInt(4);
    String id = rnd.nextInt(10) == 0 ? number() : Long.toString(rnd.nextLong(1L << 50));
    if (kind == 0) {
      sb.append("\"id\":").append(id).append(",\"op\":\"delete\"");
    } else {
      sb.append("\"id\":").append(id).append(",\"doc\":").append(object(1));
      if (rnd.nextInt(5) == 0) {
        sb.append(",\"op\":\"").append(STRINGS[rnd.nextInt(STRINGS.length)]).append('"');
      }
      if (rnd.nextInt(5) == 0) {
        sb.append(",\"").append(KEYS[rnd.nextInt(KEYS.length)]).append("\":").append(value(1));
      }
    }
    return sb.append(rnd.nextInt(5) == 0 ? " }  " : "}").toString();
  }

  private byte[] mutate(byte[] in) {
    byte[] b = in.clone();
    int n = 1 + rnd.nextInt(3);
    for (int i = 0; i < n && b.length > 0; i++) {
      int at = rnd.nextInt(b.length);
      int r = rnd.nextInt(3);
      if (r == 0) {
        String alphabet = "{}[]\",:\\ -.0e9ta\t";
        b[at] = (byte) alphabet.charAt(rnd.nextInt(alphabet.length()));
      } else if (r == 1) {
        b[at] = (byte) rnd.nextInt(256);
      } else {
        byte[] c = new byte[b.length - 1];
        System.arraycopy(b, 0, c, 0, at);
        System.arraycopy(b, at + 1, c, at, b.length - at - 1);
        b = c;
      }
    }
    return b;
  }

  @Test
  void acceptsOnlyWhatJacksonAcceptsAndAgrees() {
    UpdateParser jackson = new UpdateParser(200);
    BulkLineScanner fast = new BulkLineScanner(200);
    int fastAccepted = 0;
    int valid = 0;
    for (int i = 0; i < 50_000; i++) {
      byte[] line = line().getBytes(StandardCharsets.UTF_8);
      if (i % 2 == 1) {
        line = mutate(line);
      }
      int pad = rnd.nextInt(3);
      byte[] buf = new byte[line.length + 2 * pad];
      System.arraycopy(line, 0, buf, pad, line.length);
      UpdateParser.Slice expected;
      try {
        expected = jackson.parseSlice(buf, pad, line.length);
        valid++;
      } catch (InvalidUpdateException e) {
        expected = null;
      }
      UpdateParser.Slice got = fast.parse(buf, pad, line.length);
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
    UpdateParser.Slice s = new BulkLineScanner(4096).parse(line, 0, line.length);
    assertThat(s).isEqualTo(new UpdateParser(4096).parseSlice(line, 0, line.length));
    assertThat(s.discoveredAtMillis()).isEqualTo(1732400000000L);
  }
}
