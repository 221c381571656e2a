package io.docstore.queue.segment;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class SegmentSetTest {

  private static SegmentInfo seg(long n, long base, long last) {
    return new SegmentInfo(n, base, Path.of("s" + n), null, 44, last, true);
  }

  @Test
  void findsSegmentsByNumberAndSequence() {
    SegmentSet s = new SegmentSet();
    assertThat(s.last()).isNull();
    s.add(seg(3, 1, 10));
    s.add(seg(4, 11, 20));
    s.add(seg(5, 21, 20));
    assertThat(s.first().number()).isEqualTo(3);
    assertThat(s.last().number()).isEqualTo(5);
    assertThat(s.get(4).baseSequence()).isEqualTo(11);
    assertThat(s.get(6)).isNull();
    assertThat(s.forSequence(1).number()).isEqualTo(3);
    assertThat(s.forSequence(10).number()).isEqualTo(3);
    assertThat(s.forSequence(11).number()).isEqualTo(4);
    assertThat(s.forSequence(21).number()).isEqualTo(5);
    assertThat(s.forSequence(1000).number()).isEqualTo(5);
    assertThat(s.forSequence(0).number()).isEqualTo(3);
  }
}
