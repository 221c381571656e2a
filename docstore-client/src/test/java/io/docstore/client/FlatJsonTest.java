package io.docstore.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The admin port's answers as the client reads them, and what it refuses to guess at. */
class FlatJsonTest {

  @Test
  void readsIntegersAndStrings() {
    assertThat(FlatJson.parse("{\"id\":7,\"seq\":12}")).isEqualTo(Map.of("id", 7L, "seq", 12L));
    assertThat(FlatJson.parse(" { \"line\" : 2 , \"status\":400,\"error\":\"bad\" } "))
        .isEqualTo(Map.of("line", 2L, "status", 400L, "error", "bad"));
    assertThat(FlatJson.parse("{}")).isEmpty();
    assertThat(FlatJson.parse("{\"seq\":-1}")).isEqualTo(Map.of("seq", -1L));
  }

  @Test
  void undoesEveryEscapeTheServerWrites() {
    String text = "{\"error\":\"a \\\"b\\\" \\\\ \\/ \\b\\f\\n\\r\\t \\u00e9\\u0001\"}";
    assertThat(FlatJson.parse(text).get("error")).isEqualTo("a \"b\" \\ / \b\f\n\r\t é\u0001");
  }

  @Test
  void refusesWhatItDoesNotRead() {
    for (String bad :
        new String[] {
          "",
          "[1]",
          "{\"a\":{}}",
          "{\"a\":[1]}",
          "{\"a\":1.5}",
          "{\"a\":true}",
          "{\"a\":1} x",
          "{\"a\":\"open}",
          "{\"a\":\"\\x\"}",
          "{\"a\":\"\\u12\"}",
          "{\"a\" 1}",
          "not json"
        }) {
      assertThatThrownBy(() -> FlatJson.parse(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }
}
