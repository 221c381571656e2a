package io.docstore.service.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.docstore.io.FileSystem;
import io.docstore.service.metrics.Metrics;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replica's meters as Prometheus scrapes them: each with a description, one unit suffix at
 * most, and exactly the names docs/replication.md lists (a timer's {@code _max} with the timer).
 */
class ReplicaMetersTest {

  @TempDir Path tmp;

  @Test
  void everyReplicaMeterHasAHelpTextOneUnitAndIsDocumented() throws Exception {
    ReplicaOptions o =
        ReplicaOptions.builder("rsync://127.0.0.1:1/none/", tmp).cacheBytes(0).build();
    Path queueDir = Files.createDirectories(tmp.resolve("queue"));
    PrometheusMeterRegistry registry = Metrics.newRegistry();
    ReplicaCheckpoint checkpoint =
        new ReplicaCheckpoint(
            FileSystem.real(), tmp.resolve("replica.point"), o.checkpointInterval);
    try (ReplicaIngester ingester =
        new ReplicaIngester(
            FileSystem.real(),
            queueDir,
            o,
            checkpoint,
            ReplicaMeters.recordLag(registry),
            ReplicaMeters.divergences(registry))) {
      Freshness freshness = new Freshness(System::currentTimeMillis, o.maxStaleness, null);
      PullLoop loop =
          new PullLoop(
              o,
              new RsyncPuller(FileSystem.real(), "true", o.source, queueDir, 1),
              ingester,
              checkpoint,
              freshness,
              ReplicaMeters.pullTimer(registry));
      ReplicaMeters.bind(registry, ingester, loop, freshness);
      String scrape = registry.scrape();
      Set<String> families = new TreeSet<>();
      Matcher help = Pattern.compile("(?m)^# HELP (docstore_replica_\\w+) ?(.*)$").matcher(scrape);
      while (help.find()) {
        families.add(help.group(1));
        assertThat(help.group(2)).as("HELP of " + help.group(1)).isNotBlank();
        assertThat(help.group(1))
            .as("one unit suffix")
            .doesNotContainPattern(
                "_(millis|milliseconds|seconds|bytes)_(millis|milliseconds|seconds|bytes)");
      }
      // A timer's maximum (_max) is documented with the timer.
      families.removeIf(f -> f.endsWith("_max") && families.contains(f.replaceAll("_max$", "")));
      assertThat(families).hasSizeGreaterThan(15);
      String doc =
          Files.readString(RsyncDaemon.scripts().getParent().resolve("docs/replication.md"));
      Set<String> documented = new TreeSet<>();
      Matcher named = Pattern.compile("`(docstore_replica_\\w+)`").matcher(doc);
      while (named.find()) {
        documented.add(named.group(1));
      }
      assertThat(documented).as("docs/replication.md lists the meters").isEqualTo(families);
    } finally {
      Metrics.close(registry);
    }
  }
}
