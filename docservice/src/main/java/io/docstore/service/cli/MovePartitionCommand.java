package io.docstore.service.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.docstore.client.ShardMap;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code docstore move-partition P --to SHARD (--map FILE | --push URL,...) --admin URL}: moves
 * partition P of a sharded docstore to shard SHARD by changing the shard map the nodes follow,
 * either a file they share or the map pushed to each node's admin port (docs/kafka.md, "Moving a
 * partition"). Step 1 gives SHARD the partition to build ({@code +P}): its primary consumes it from
 * the topic's beginning while the old shard goes on serving it. Once the primary at {@code --admin}
 * reports no lag in P, step 2 gives P to SHARD: every node takes the new map within a second (at
 * once when pushed), the old shard answers wrong_shard for P (clients fetch the map again) and its
 * primary deletes its copy after {@code cluster.drop-delay}. Each step replaces the file
 * atomically, or is pushed node by node. Exit 0 when moved, 1 when the target did not catch up in
 * time (the map is left at step 1, which serves as before), 2 for bad arguments.
 */
@Command(
    name = "move-partition",
    mixinStandardHelpOptions = true,
    description =
        "Move a partition of the update topic to another shard through the shard map: the shard"
            + " builds it from the topic, then serves it; the old shard drops it.")
final class MovePartitionCommand implements Callable<Integer> {

  private static final long POLL_MILLIS = 500;

  @Parameters(paramLabel = "P", description = "The partition to move.")
  int partition;

  @Option(names = "--to", required = true, paramLabel = "SHARD", description = "Its new shard.")
  String to;

  @Option(
      names = "--map",
      paramLabel = "FILE",
      description =
          "The shard-map file every node follows (docstore.cluster.shard-map), when the nodes"
              + " share it; or --push.")
  Path map;

  @Option(
      names = "--push",
      paramLabel = "URL",
      split = ",",
      description =
          "Instead of --map: the admin URL of every node of the cluster (primaries and replicas),"
              + " each given the new map with PUT /cluster; the map is read from the first.")
  List<URI> push;

  @Option(
      names = "--admin",
      required = true,
      paramLabel = "URL",
      description = "The new shard's primary's admin URL, e.g. http://10.0.0.2:8081.")
  URI admin;

  @Option(
      names = "--admin-token",
      paramLabel = "T",
      description = "Its admin token, if it has one (docstore.http.admin.token).")
  String adminToken;

  @Option(
      names = "--timeout",
      paramLabel = "SECONDS",
      defaultValue = "3600",
      description = "How long to wait for the new shard to catch up (default ${DEFAULT-VALUE}).")
  long timeoutSeconds;

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final ObjectMapper json = new ObjectMapper();

  @Override
  public Integer call() throws Exception {
    if ((map == null) == (push == null || push.isEmpty())) {
      System.err.println(
          "docstore move-partition: give the shard map as --map FILE (shared by the nodes) or"
              + " --push URL,... (every node's admin URL), one of the two");
      return 2;
    }
    ShardMap current = current();
    ShardMap.Shard target = current.shard(to);
    if (target == null) {
      System.err.println(
          "docstore move-partition: no shard '" + to + "' in " + (map != null ? map : push.get(0)));
      return 2;
    }
    if (partition < 0 || partition >= current.partitions()) {
      System.err.println(
          "docstore move-partition: partition "
              + partition
              + " is not in [0, "
              + current.partitions()
              + ")");
      return 2;
    }
    if (target.partitions().contains(partition)) {
      System.out.println("partition " + partition + " is already served by shard " + to);
      return 0;
    }
    String from = current.shards().get(current.shardOfPartition(partition)).name();
    long t0 = System.nanoTime();
    write(current.building(partition, to));
    System.out.println(
        "step 1: shard "
            + to
            + " builds partition "
            + partition
            + " (shard "
            + from
            + " serves it)");
    long deadline = t0 + Duration.ofSeconds(timeoutSeconds).toNanos();
    String last = "";
    while (true) {
      JsonNode p = progress();
      if (p != null && p.path("lagMessages").asLong(-1) == 0) {
        break;
      }
      String now =
          p == null
              ? "waiting for shard " + to + " to take the map"
              : p.path("endOffset").asLong(-1) < 0
                  ? "consuming, at offset " + p.path("position").asLong()
                  : "at offset "
                      + p.path("position").asLong()
                      + " of "
                      + p.path("endOffset").asLong();
      if (!now.equals(last)) {
        System.out.println("  " + now);
        last = now;
      }
      if (System.nanoTime() > deadline) {
        System.err.println(
            "docstore move-partition: shard "
                + to
                + " did not catch up within "
                + timeoutSeconds
                + " s; the map is left at step 1 (shard "
                + from
                + " still serves the partition): run again to go on waiting");
        return 1;
      }
      Thread.sleep(POLL_MILLIS);
    }
    long built = System.nanoTime() - t0;
    write(current().moved(partition, to));
    System.out.printf(
        "step 2: shard %s serves partition %d (built in %.1f s, moved in %.1f s); shard %s drops"
            + " its copy after its cluster.drop-delay%n",
        to, partition, built / 1e9, (System.nanoTime() - t0) / 1e9, from);
    return 0;
  }

  /** The target's {@code kafka.partitions} entry for the partition, or null if not there yet. */
  private JsonNode progress() throws Exception {
    HttpResponse<String> r =
        http.send(request(admin, "/stats").GET().build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new java.io.IOException(admin.resolve("/stats") + " answered " + r.statusCode());
    }
    for (JsonNode p : json.readTree(r.body()).path("kafka").path("partitions")) {
      if (p.path("partition").asInt(-1) == partition) {
        return p;
      }
    }
    return null;
  }

  /** The map now: the file's, or the first pushed node's {@code GET /cluster}. */
  private ShardMap current() throws Exception {
    if (map != null) {
      return ShardMap.read(map);
    }
    HttpResponse<String> r =
        http.send(
            request(push.get(0), "/cluster").GET().build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new java.io.IOException(
          push.get(0).resolve("/cluster") + " answered " + r.statusCode() + ": " + r.body());
    }
    return ShardMap.parse(r.body());
  }

  private HttpRequest.Builder request(URI node, String path) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(node.resolve(path)).timeout(Duration.ofSeconds(10));
    if (adminToken != null) {
      b.header("Authorization", "Bearer " + adminToken);
    }
    return b;
  }

  /**
   * Puts {@code m} in force: replaces the map file at once (written beside it, synced, renamed), or
   * pushes it to every node in turn ({@code PUT /cluster}, which each node checks and writes over
   * its own map file); a node that refuses or cannot be reached stops the move, named.
   */
  private void write(ShardMap m) throws Exception {
    if (map == null) {
      for (URI node : push) {
        HttpResponse<String> r =
            http.send(
                request(node, "/cluster")
                    .PUT(HttpRequest.BodyPublishers.ofString(m.toString(), StandardCharsets.UTF_8))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
          throw new java.io.IOException(
              node.resolve("/cluster")
                  + " refused the map ("
                  + r.statusCode()
                  + " "
                  + r.body().strip()
                  + "); the nodes before it in --push have it: fix the node and run again");
        }
      }
      return;
    }
    Path tmp = map.resolveSibling(map.getFileName() + ".tmp");
    Files.writeString(tmp, m.toString(), StandardCharsets.UTF_8);
    try (FileChannel c = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
      c.force(true);
    }
    Files.move(tmp, map, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }
}
