package io.docstore.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SyncPolicyTest {

  @Test
  void parsesEveryForm() {
    assertThat(SyncPolicy.parse("always")).isEqualTo(SyncPolicy.ALWAYS);
    assertThat(SyncPolicy.parse(" NONE ")).isEqualTo(SyncPolicy.NONE);
    assertThat(SyncPolicy.parse("interval:50")).isEqualTo(SyncPolicy.interval(50));
    assertThat(SyncPolicy.parse("interval:50ms")).isEqualTo(SyncPolicy.interval(50));
    assertThat(SyncPolicy.parse("interval").mode()).isEqualTo(SyncPolicy.Mode.INTERVAL);
    assertThat(SyncPolicy.parse(SyncPolicy.interval(7).toString()))
        .isEqualTo(SyncPolicy.interval(7));
  }

  @Test
  void rejectsNonsenseWithTheReason() {
    assertThatThrownBy(() -> SyncPolicy.parse("sometimes"))
        .hasMessageContaining("unknown sync policy 'sometimes'");
    assertThatThrownBy(() -> SyncPolicy.parse("interval:0"))
        .hasMessageContaining("must be positive");
    assertThatThrownBy(() -> SyncPolicy.parse("interval:x"))
        .hasMessageContaining("bad sync interval");
  }
}
