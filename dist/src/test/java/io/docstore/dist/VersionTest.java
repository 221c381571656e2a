package io.docstore.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bin/docstore --version} prints the project's version, read from the jar's manifest. */
class VersionTest {

  @TempDir Path dir;

  @Test
  void printsTheProjectVersion() throws Exception {
    Path home = Tarball.unpack(dir);
    Tarball.Result r = Tarball.docstore(home, Map.of(), 60, "--version");
    assertThat(r.exit()).as(r.stderr()).isZero();
    assertThat(r.stdout().strip()).isEqualTo("docstore " + Tarball.VERSION);
  }
}
