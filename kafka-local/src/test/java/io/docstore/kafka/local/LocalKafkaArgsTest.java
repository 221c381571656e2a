package io.docstore.kafka.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** {@link LocalKafka}'s command line: the SASL listener's options and what they refuse. */
class LocalKafkaArgsTest {

  private static final String[] BASE = {
    "--dir", "d", "--port", "9092", "--controller-port", "9093"
  };

  private static LocalKafka.Args parse(String... more) {
    String[] all = new String[BASE.length + more.length];
    System.arraycopy(BASE, 0, all, 0, BASE.length);
    System.arraycopy(more, 0, all, BASE.length, more.length);
    return LocalKafka.Args.parse(all);
  }

  @Test
  void aSaslListenerTakesAPortAndOneUser() {
    LocalKafka.Args plain = parse();
    assertThat(plain.saslPort()).isEqualTo(-1);
    LocalKafka.Args sasl = parse("--sasl-port", "9094", "--sasl-user", "docstore:pa:ss-1");
    assertThat(sasl.saslPort()).isEqualTo(9094);
    assertThat(sasl.saslUser()).isEqualTo("docstore");
    assertThat(sasl.saslPassword()).isEqualTo("pa:ss-1"); // split at the first colon
  }

  @Test
  void aSaslListenerWithoutAUserOrWithAPasswordTheJaasLineCannotHoldIsRefused() {
    String[][] bad = {
      {"--sasl-port", "9094"},
      {"--sasl-user", "a:b"},
      {"--sasl-port", "9094", "--sasl-user", "nopassword"},
      {"--sasl-port", "9094", "--sasl-user", "a:with\"quote"},
      {"--sasl-port", "9094", "--sasl-user", "a:with\\backslash"},
      {"--sasl-port", "9094", "--sasl-user", "bad name:x"},
      {"--sasl-port", "9092", "--sasl-user", "a:b"},
    };
    for (String[] b : bad) {
      assertThatThrownBy(() -> parse(b))
          .as(String.join(" ", b))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("--sasl-");
    }
  }
}
