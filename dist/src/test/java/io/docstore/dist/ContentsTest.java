package io.docstore.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tarball's layout: one top directory {@code docstore-VERSION/}, an executable launcher, the
 * jars, configuration, units, docs, and a THIRD-PARTY list that names every bundled jar.
 */
class ContentsTest {

  @TempDir Path dir;

  @Test
  void everyEntryIsUnderOneTopDirectory() throws Exception {
    Tarball.Result r =
        Tarball.run(dir, List.of("tar", "-tzf", Tarball.FILE.toString()), Map.of(), 60);
    assertThat(r.exit()).isZero();
    assertThat(r.stdout().lines()).isNotEmpty().allMatch(e -> e.startsWith(Tarball.TOP + "/"));
  }

  @Test
  void layout() throws Exception {
    Path home = Tarball.unpack(dir);
    assertThat(home.resolve("bin/docstore")).isExecutable();
    for (String f :
        List.of(
            "conf/docstore.conf",
            "conf/docstore.reference.conf",
            "conf/logback.xml",
            "systemd/docstore.service",
            "systemd/docstore-replica@.service",
            "monitoring/prometheus/docstore-rules.yml",
            "monitoring/grafana/docstore.json",
            "docs/README.md",
            "docs/deploy.md",
            "docs/service.md",
            "NOTICE",
            "THIRD-PARTY.txt",
            "lib/docservice-" + Tarball.VERSION + ".jar")) {
      assertThat(home.resolve(f)).as(f).isRegularFile();
    }
    assertThat(home.resolve("licenses/jackson-databind-2.23.0/LICENSE")).isRegularFile();
  }

  @Test
  void thirdPartyListNamesEveryBundledJarAndNothingElse() throws Exception {
    Path home = Tarball.unpack(dir);
    List<String> entries =
        Files.readAllLines(home.resolve("THIRD-PARTY.txt")).stream()
            .filter(l -> l.strip().startsWith("("))
            .collect(Collectors.toList());
    List<String> thirdParty;
    try (Stream<Path> jars = Files.list(home.resolve("lib"))) {
      thirdParty =
          jars.map(p -> p.getFileName().toString())
              .filter(n -> !n.endsWith("-" + Tarball.VERSION + ".jar"))
              .collect(Collectors.toList());
    }
    assertThat(thirdParty).hasSizeGreaterThan(10);
    assertThat(entries).hasSameSizeAs(thirdParty);
    for (String jar : thirdParty) {
      // lib/ARTIFACT-VERSION.jar is listed as (LICENCE) NAME (GROUP:ARTIFACT:VERSION - URL)
      String artifactVersion = jar.substring(0, jar.length() - ".jar".length());
      assertThat(entries)
          .as(jar)
          .anyMatch(
              e -> {
                String[] gav = e.substring(e.lastIndexOf('(') + 1).split(" ")[0].split(":");
                return gav.length == 3 && (gav[1] + "-" + gav[2]).equals(artifactVersion);
              });
    }
    assertThat(entries).allMatch(e -> e.strip().matches("\\(.+\\) .+ \\(.+:.+:.+ - .+\\)"));
  }
}
