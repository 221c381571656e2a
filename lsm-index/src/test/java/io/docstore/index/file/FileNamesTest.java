package io.docstore.index.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class FileNamesTest {

  @Test
  void formatsAndParsesAndIgnoresStrangers() {
    Path d = Path.of("x");
    for (FileNames.Kind k : FileNames.Kind.values()) {
      Path p = FileNames.path(d, k, 42);
      assertThat(FileNames.parse(p)).isEqualTo(new FileNames.Parsed(k, 42));
    }
    assertThat(FileNames.path(d, FileNames.Kind.TABLE, 7).getFileName().toString())
        .isEqualTo("0000000007.idx");
    assertThat(FileNames.parse(Path.of("MANIFEST"))).isNull();
    assertThat(FileNames.parse(Path.of(".MANIFEST.1.2.tmp"))).isNull();
    assertThat(FileNames.parse(Path.of("123.idx"))).isNull();
    assertThat(FileNames.parse(Path.of("00000000x1.wal"))).isNull();
    assertThat(FileNames.parse(Path.of(".0000000001.idx.Ab12"))).isNull();
  }
}
