package io.docstore.service.groups;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.docstore.io.TestSupport;
import io.docstore.service.updater.RandomJson;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A projection copies each grouped value's bytes as the document holds them: whatever the spacing,
 * nesting, escapes, number forms and literals, every projection parses to exactly the grouped
 * fields of the parsed document (first occurrence of a repeated field), in document order.
 */
class FieldGroupsTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static final FieldGroups GROUPS;

  static {
    Map<String, List<String>> g = new LinkedHashMap<>();
    g.put("a", List.of("n", "s", "o", "arr"));
    g.put("b", List.of("s", "t", "f", "z", "x\"y", "d"));
    GROUPS = new FieldGroups(g);
  }

  private static final String[] DOCUMENTS = {
    "{\"n\":1,\"s\":\"x\",\"o\":{\"k\":[1,2,{\"q\":null}]},\"arr\":[],\"t\":true,\"f\":false,\"z\":null}",
    "{ \"n\" : -12.5e3 , \"s\" : \"a \\\"quoted\\\" \\u00e9 é\\n\" ,\n  \"o\" : { } , \"skip\" : [ 1 , { \"n\" : 9 } ] ,"
        + "\n\t\"arr\" : [ \"}\" , \"]\" ] , \"t\" : true , \"d\" : 0 }",
    "{\"long\":\"" + "w".repeat(5000) + "\",\"n\":0,\"x\\\"y\":\"escaped name\",\"d\":1E+2}",
    "{\"s\":\"first\",\"n\":3,\"s\":\"second\"}",
    "{}",
    "{\"other\":1}",
    "{\"d\":123456789012345678901234567890,\"n\":1}\n",
  };

  @Test
  void projectionsParseToTheGroupedFieldsOfTheDocument() throws Exception {
    for (String doc : DOCUMENTS) {
      byte[][] p = GROUPS.project(1, doc.getBytes(StandardCharsets.UTF_8));
      Map<?, ?> whole = firstOccurrences(doc);
      int g = 0;
      for (Map.Entry<String, List<String>> e : GROUPS.fields().entrySet()) {
        Map<String, Object> expected = new LinkedHashMap<>();
        for (Object k : whole.keySet()) {
          if (e.getValue().contains((String) k)) {
            expected.put((String) k, whole.get(k));
          }
        }
        String got = new String(p[g++], StandardCharsets.UTF_8);
        Map<?, ?> parsed = JSON.readValue(got, LinkedHashMap.class);
        assertThat(parsed).as("group %s of %s: %s", e.getKey(), doc, got).isEqualTo(expected);
        assertThat(List.copyOf(parsed.keySet()))
            .as("document order")
            .isEqualTo(List.copyOf(expected.keySet()));
      }
    }
  }

  /** The document's fields with the first value of a repeated one. */
  private static Map<?, ?> firstOccurrences(String doc) throws Exception {
    Map<Object, Object> first = new LinkedHashMap<>();
    try (var p = JSON.getFactory().createParser(doc)) {
      p.nextToken();
      while (p.nextToken() == com.fasterxml.jackson.core.JsonToken.FIELD_NAME) {
        String name = p.currentName();
        p.nextToken();
        Object v = JSON.readTree(p);
        first.putIfAbsent(
            name, JSON.treeToValue((com.fasterxml.jackson.databind.JsonNode) v, Object.class));
      }
    }
    return first;
  }

  /**
   * The scanner's path gives exactly Jackson's projections, and refuses exactly what Jackson
   * refuses, on random documents (the grouped names among their members) and their mutations.
   */
  @Test
  void theScannersProjectionsAreJacksons() {
    long seed = TestSupport.seed("FieldGroupsTest");
    SplittableRandom rnd = new SplittableRandom(seed);
    RandomJson json = new RandomJson(rnd, "n", "s", "o", "arr", "t", "f", "z", "d", "x\\\"y");
    int projected = 0;
    for (int i = 0; i < 30_000; i++) {
      byte[] doc = json.object(1).getBytes(StandardCharsets.UTF_8);
      if (i % 3 == 2) {
        doc = json.mutate(doc);
      }
      byte[][] expected;
      try {
        expected = GROUPS.projectWithJackson(1, doc);
      } catch (IllegalArgumentException e) {
        expected = null;
      }
      String what = new String(doc, StandardCharsets.UTF_8) + ", seed " + seed;
      if (expected == null) {
        byte[] d = doc;
        assertThatThrownBy(() -> GROUPS.project(1, d))
            .as(what)
            .isInstanceOf(IllegalArgumentException.class);
      } else {
        projected++;
        assertThat(GROUPS.project(1, doc)).as(what).isDeepEqualTo(expected);
      }
    }
    assertThat(projected).as("seed %d", seed).isGreaterThan(10_000);
  }

  @Test
  void aDocumentThatIsNotOneObjectIsRefusedWithItsReason() {
    for (String bad : new String[] {"[1]", "\"s\"", "{\"n\":1} {}", "{\"n\":", "{\"skip\":[1,}"}) {
      assertThatThrownBy(() -> GROUPS.project(7, bad.getBytes(StandardCharsets.UTF_8)))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("document 7 is not a JSON object");
    }
  }
}
