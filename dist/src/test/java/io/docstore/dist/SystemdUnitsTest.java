package io.docstore.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The systemd units: what they promise (an unprivileged user, a read-only system but for the data
 * directory the shipped configuration names, a stop timeout above its drain period plus shutdown
 * timeout), and {@code systemd-analyze verify} finding nothing to say about them, where it exists.
 */
class SystemdUnitsTest {

  private static final List<String> UNITS =
      List.of("docstore.service", "docstore-replica@.service");

  @TempDir Path dir;

  private Path home;

  @BeforeEach
  void unpack() throws Exception {
    home = Tarball.unpack(dir);
  }

  @Test
  void unitsRunUnprivilegedAndWriteOnlyTheDataDirectory() throws Exception {
    Config conf = ConfigFactory.parseFile(home.resolve("conf/docstore.conf").toFile());
    UnitFile primary = UnitFile.read(home.resolve("systemd/docstore.service"));
    assertThat(primary.one("ReadWritePaths")).isEqualTo(conf.getString("docstore.data-dir"));
    assertThat(primary.one("WorkingDirectory")).isEqualTo(conf.getString("docstore.data-dir"));
    assertThat(primary.one("ExecStart"))
        .isEqualTo("/opt/docstore/bin/docstore serve --config /etc/docstore/docstore.conf");
    UnitFile replica = UnitFile.read(home.resolve("systemd/docstore-replica@.service"));
    assertThat(replica.one("ReadWritePaths")).isEqualTo("/var/lib/docstore-replica/%i");
    assertThat(replica.one("ExecStart"))
        .isEqualTo("/opt/docstore/bin/docstore replica --config /etc/docstore/replica-%i.conf");

    Duration stopping =
        conf.getDuration("docstore.drain-period")
            .plus(conf.getDuration("docstore.shutdown-timeout"));
    for (String name : UNITS) {
      UnitFile unit = UnitFile.read(home.resolve("systemd").resolve(name));
      assertThat(unit.one("User")).as(name).isEqualTo("docstore");
      assertThat(unit.one("Group")).as(name).isEqualTo("docstore");
      assertThat(unit.one("NoNewPrivileges")).as(name).isEqualTo("yes");
      assertThat(unit.one("ProtectSystem")).as(name).isEqualTo("strict");
      assertThat(unit.one("ProtectHome")).as(name).isEqualTo("yes");
      assertThat(unit.one("PrivateTmp")).as(name).isEqualTo("yes");
      assertThat(unit.one("Restart")).as(name).isEqualTo("on-failure");
      assertThat(Long.parseLong(unit.one("LimitNOFILE"))).as(name).isGreaterThanOrEqualTo(65536);
      assertThat(unit.seconds("TimeoutStopSec"))
          .as("%s: TimeoutStopSec above drain-period + shutdown-timeout", name)
          .isGreaterThan(stopping);
    }
  }

  @Test
  void systemdAnalyzeVerifiesTheUnits() throws Exception {
    assumeTrue(onPath("systemd-analyze"), "systemd-analyze is not installed");
    // verify checks that ExecStart's program exists: point the units at the unpacked tarball.
    Path units = Files.createDirectories(dir.resolve("units"));
    for (String name : UNITS) {
      String text = Files.readString(home.resolve("systemd").resolve(name));
      assertThat(text).contains("/opt/docstore/");
      Files.writeString(units.resolve(name), text.replace("/opt/docstore/", home + "/"));
    }
    for (String name : UNITS) {
      Tarball.Result r =
          Tarball.run(
              dir,
              List.of("systemd-analyze", "verify", units.resolve(name).toString()),
              Map.of(),
              60);
      // Unknown keys and bad values are only warnings (exit 0): any line about the unit fails.
      String said = r.stdout() + r.stderr();
      assertThat(said.lines().filter(l -> l.contains("docstore")))
          .as("systemd-analyze verify %s said:%n%s", name, said)
          .isEmpty();
      assertThat(r.exit()).as(said).isZero();
    }
  }

  private static boolean onPath(String program) {
    return Arrays.stream(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
        .anyMatch(d -> !d.isEmpty() && Files.isExecutable(Path.of(d, program)));
  }
}
