package io.docstore.queue.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class SegmentFileNameTest {

  @Test
  void formatsAndParses() {
    SegmentFileName a = new SegmentFileName(12, false);
    assertThat(a.fileName()).isEqualTo("seg-0000000012.active");
    assertThat(a.asSealed().fileName()).isEqualTo("seg-0000000012.sealed");
    assertThat(SegmentFileName.parse(Path.of("/x/seg-0000000012.active"))).contains(a);
    assertThat(SegmentFileName.parse(Path.of("seg-0000000012.sealed"))).contains(a.asSealed());
    assertThat(a.in(Path.of("d"))).isEqualTo(Path.of("d", "seg-0000000012.active"));
  }

  @Test
  void ignoresEverythingElse() {
    for (String n :
        new String[] {
          ".seg-0000000001.sealed.Xy12ab",
          "seg-0000000001.sealed~",
          "seg-0000000001.sealed.tmp",
          "seg-0000000001.active.swp",
          "seg-1.sealed",
          "seg-0000000000.sealed",
          "seg-9999999999.sealed",
          "SEG-0000000001.sealed",
          "seg-0000000001.closed",
          "notes.txt",
          "#seg-0000000001.sealed#"
        }) {
      assertThat(SegmentFileName.parse(Path.of(n))).as(n).isEmpty();
    }
    assertThat(SegmentFileName.parse(Path.of("/"))).isEmpty();
  }
}
