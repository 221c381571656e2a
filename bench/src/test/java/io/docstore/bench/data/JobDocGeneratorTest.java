package io.docstore.bench.data;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class JobDocGeneratorTest {

  @Test
  void documentsAreDeterministicJsonOfAboutOneKilobyte() {
    long total = 0;
    for (long id = 0; id < 1000; id++) {
      byte[] doc = JobDocGenerator.document(id, 0);
      assertThat(JobDocGenerator.document(id, 0)).isEqualTo(doc);
      String s = new String(doc, StandardCharsets.UTF_8);
      assertThat(s)
          .startsWith("{\"id\":" + id + ",")
          .endsWith("\"}")
          .contains("\"discovered_at\":");
      total += doc.length;
    }
    assertThat(total / 1000).isBetween(950L, 1250L);
    assertThat(JobDocGenerator.document(5, 1)).isNotEqualTo(JobDocGenerator.document(5, 0));
  }
}
