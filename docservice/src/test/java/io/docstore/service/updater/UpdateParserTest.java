package io.docstore.service.updater;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.docstore.service.Update;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class UpdateParserTest {

  private final UpdateParser p = new UpdateParser(100);

  private Update line(String s) throws InvalidUpdateException {
    byte[] b = ("xx" + s + "yy").getBytes(StandardCharsets.UTF_8);
    return p.parseLine(b, 2, b.length - 4);
  }

  @Test
  void docIsSlicedByteExact() throws Exception {
    Update u =
        line(
            "{\"id\":5,  \"doc\" : { \"b\" : 1.50 ,\"discovered_at\":123, \"n\":{\"discovered_at\":9}}}");
    assertThat(u.id()).isEqualTo(5);
    assertThat(new String(u.body(), StandardCharsets.UTF_8))
        .isEqualTo("{ \"b\" : 1.50 ,\"discovered_at\":123, \"n\":{\"discovered_at\":9}}");
    assertThat(u.discoveredAtMillis()).isEqualTo(123);
    assertThat(line("{\"doc\":{},\"id\":0,\"op\":\"put\"}").id()).isZero();
    assertThat(line("{\"id\":7,\"op\":\"delete\"}").isDelete()).isTrue();
  }

  @Test
  void invalidLinesSayWhy() {
    String[][] cases = {
      {"", "JSON object"},
      {"[]", "JSON object"},
      {"{\"id\":1}", "missing \"doc\""},
      {"{\"doc\":{}}", "missing \"id\""},
      {"{\"id\":-1,\"doc\":{}}", "non-negative"},
      {"{\"id\":1.5,\"doc\":{}}", "integer"},
      {"{\"id\":\"1\",\"doc\":{}}", "integer"},
      {"{\"id\":99999999999999999999,\"doc\":{}}", "out of range"},
      {"{\"id\":1,\"doc\":[]}", "JSON object"},
      {"{\"id\":1,\"op\":\"upsert\",\"doc\":{}}", "unknown \"op\""},
      {"{\"id\":1,\"op\":\"delete\",\"doc\":{}}", "no \"doc\""},
      {"{\"id\":1,\"doc\":{}} {}", "unexpected content"},
      {"{\"id\":1,\"doc\":{\"a\":}}", "invalid JSON"},
      {"{\"id\":1,\"doc\":{\"a\":\"" + "x".repeat(200) + "\"}}", "over the limit"},
    };
    for (String[] c : cases) {
      assertThatThrownBy(() -> line(c[0]))
          .as(c[0])
          .isInstanceOf(InvalidUpdateException.class)
          .hasMessageContaining(c[1]);
    }
  }

  @Test
  void aDocumentOverTheLimitIsTooLargeNotMalformed() {
    String doc = "{\"a\":\"" + "x".repeat(200) + "\"}";
    byte[] b = doc.getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> p.validateDocument(b, 0, b.length))
        .isInstanceOf(DocumentTooLargeException.class)
        .hasMessage("document is 208 bytes, over the limit of 100");
    assertThatThrownBy(() -> line("{\"id\":1,\"doc\":" + doc + "}"))
        .isInstanceOf(DocumentTooLargeException.class)
        .hasMessage("document is 208 bytes, over the limit of 100");
    byte[] bad = "{\"a\": over the limit}".getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> p.validateDocument(bad, 0, bad.length))
        .isInstanceOf(InvalidUpdateException.class)
        .isNotInstanceOf(DocumentTooLargeException.class);
  }

  @Test
  void documentsMustBeOneObject() throws Exception {
    byte[] ok =
        "{\"discovered_at\": 42, \"x\": [1, {\"y\": null}]}".getBytes(StandardCharsets.UTF_8);
    assertThat(p.validateDocument(ok, 0, ok.length)).isEqualTo(42);
    byte[] noTime = "{\"discovered_at\": \"yesterday\"}".getBytes(StandardCharsets.UTF_8);
    assertThat(p.validateDocument(noTime, 0, noTime.length)).isEqualTo(-1);
    for (String bad : new String[] {"", " ", "1", "[]", "{} {}", "{", "{\"a\" 1}", "{'a':1}"}) {
      byte[] b = bad.getBytes(StandardCharsets.UTF_8);
      assertThatThrownBy(() -> p.validateDocument(b, 0, b.length))
          .as(bad)
          .isInstanceOf(InvalidUpdateException.class);
    }
  }
}
