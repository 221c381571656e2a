package io.docstore.service.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DocumentIdsTest {

  @Test
  void parsesTheWholeNonNegativeRange() throws BadRequest {
    assertThat(DocumentIds.parse("0")).isZero();
    assertThat(DocumentIds.parse("007")).isEqualTo(7);
    assertThat(DocumentIds.parse("9223372036854775807")).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void rejectsEverythingElseWithAReason() {
    assertThatThrownBy(() -> DocumentIds.parse("")).hasMessageContaining("empty");
    assertThatThrownBy(() -> DocumentIds.parse("9223372036854775808"))
        .hasMessageContaining("out of range");
    assertThatThrownBy(() -> DocumentIds.parse("99999999999999999999"))
        .hasMessageContaining("out of range");
    assertThatThrownBy(() -> DocumentIds.parse("18446744073709551617"))
        .hasMessageContaining("out of range");
    for (String bad : new String[] {"-1", "+1", " 1", "1 ", "1e3", "0x1", "..", "1/2", "١"}) {
      assertThatThrownBy(() -> DocumentIds.parse(bad))
          .as(bad)
          .isInstanceOf(BadRequest.class)
          .hasMessageContaining("malformed");
    }
  }
}
