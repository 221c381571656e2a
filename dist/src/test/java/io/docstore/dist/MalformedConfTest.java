package io.docstore.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broken {@code conf/docstore.conf} stops {@code bin/docstore serve} at start with exit status 2
 * and one line naming the file (and the key, for a bad value), not a stack trace.
 */
class MalformedConfTest {

  @TempDir Path dir;

  private Path home;
  private Path conf;

  @BeforeEach
  void unpack() throws Exception {
    home = Tarball.unpack(dir);
    conf = home.resolve("conf/docstore.conf");
  }

  private Tarball.Result serve() throws Exception {
    return Tarball.docstore(home, Map.of(), 60, "serve", "--data", dir.resolve("data").toString());
  }

  @Test
  void syntaxErrorNamesTheFileAndLine() throws Exception {
    String text = Files.readString(conf);
    // The closing brace of the docstore block goes missing.
    Files.writeString(conf, text.substring(0, text.lastIndexOf('}')));
    Tarball.Result r = serve();
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.stderr())
        .startsWith("docstore: invalid configuration: ")
        .containsPattern(Pattern.quote(conf.toString()) + ": [0-9]+: ")
        .doesNotContain("\tat ");
    assertThat(dir.resolve("data")).doesNotExist();
  }

  @Test
  void badValueNamesTheKeyAndTheFile() throws Exception {
    Files.writeString(
        conf, Files.readString(conf).replace("drain-period = 5s", "drain-period = soon"));
    Tarball.Result r = serve();
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.stderr())
        .contains("invalid configuration: docstore.drain-period: " + conf)
        .contains("'soon'")
        .doesNotContain("\tat ");
  }

  @Test
  void unknownKeyNamesTheKeyAndTheFile() throws Exception {
    Files.writeString(
        conf, Files.readString(conf).replace("drain-period = 5s", "drain-perod = 5s"));
    Tarball.Result r = serve();
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.stderr())
        .contains("invalid configuration: docstore.drain-perod: unknown key")
        .contains(conf.toString());
  }
}
