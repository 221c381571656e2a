package io.docstore.client;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Which shard serves which partitions of the update log, and where each shard's servers are ({@code
 * docs/formats/shard-map.md}): the partition count, then per shard its name, its partitions and its
 * binary RPC addresses (primary and replicas). A document lives in partition {@link
 * KafkaKeys#partitionFor}{@code (id, partitions)}, the partition Kafka's default partitioner gives
 * its record, and so on the shard that serves that partition. Every partition has exactly one
 * serving shard. A shard may also be <em>building</em> partitions ({@code +P}): it consumes them
 * from the topic but does not serve them yet (a partition being moved to it); a shard with none
 * ({@code -}) is being emptied or filled. Immutable.
 *
 * <pre>
 * # comment
 * partitions 6
 * shard a 0-1 127.0.0.1:7001 127.0.0.1:7101
 * shard b 2,3,+4 127.0.0.1:7002
 * shard c 4-5 127.0.0.1:7003
 * </pre>
 */
public final class ShardMap {

  /**
   * One shard: its name, the partitions it serves, the partitions it is building (consuming, not
   * serving yet) and its servers' RPC addresses.
   */
  public record Shard(
      String name,
      List<Integer> partitions,
      List<Integer> building,
      List<InetSocketAddress> servers) {
    public Shard {
      partitions = List.copyOf(partitions);
      building = List.copyOf(building);
      servers = List.copyOf(servers);
    }

    /** A shard building nothing. */
    public Shard(String name, List<Integer> partitions, List<InetSocketAddress> servers) {
      this(name, partitions, List.of(), servers);
    }

    /** What the shard consumes from the topic: the partitions it serves and those it builds. */
    public List<Integer> consumed() {
      List<Integer> all = new ArrayList<>(partitions);
      all.addAll(building);
      return all;
    }
  }

  private final int partitions;
  private final List<Shard> shards;
  private final int[] shardOf;

  /**
   * @throws IllegalArgumentException if a partition is outside {@code [0, partitions)}, has no
   *     shard or has two, or a shard has no server
   */
  public ShardMap(int partitions, List<Shard> shards) {
    if (partitions < 1) {
      throw new IllegalArgumentException("at least 1 partition, got " + partitions);
    }
    this.partitions = partitions;
    this.shards = List.copyOf(shards);
    this.shardOf = new int[partitions];
    java.util.Arrays.fill(shardOf, -1);
    for (int s = 0; s < this.shards.size(); s++) {
      Shard shard = this.shards.get(s);
      if (shard.servers().isEmpty()) {
        throw new IllegalArgumentException("shard " + shard.name() + " has no server");
      }
      for (int p : shard.partitions()) {
        if (p < 0 || p >= partitions) {
          throw new IllegalArgumentException(
              "shard " + shard.name() + ": partition " + p + " is not in [0, " + partitions + ")");
        }
        if (shardOf[p] >= 0) {
          throw new IllegalArgumentException(
              "partition "
                  + p
                  + " is in shard "
                  + this.shards.get(shardOf[p]).name()
                  + " and in shard "
                  + shard.name());
        }
        shardOf[p] = s;
      }
    }
    for (Shard shard : this.shards) {
      for (int p : shard.building()) {
        if (p < 0 || p >= partitions) {
          throw new IllegalArgumentException(
              "shard " + shard.name() + ": partition +" + p + " is not in [0, " + partitions + ")");
        }
        if (shard.partitions().contains(p)
            || shard.building().indexOf(p) != shard.building().lastIndexOf(p)) {
          throw new IllegalArgumentException(
              "shard " + shard.name() + " names partition " + p + " twice");
        }
      }
    }
    java.util.Set<String> names = new java.util.HashSet<>();
    for (Shard shard : this.shards) {
      if (!names.add(shard.name())) {
        throw new IllegalArgumentException("two shards are named " + shard.name());
      }
    }
    for (int p = 0; p < partitions; p++) {
      if (shardOf[p] < 0) {
        throw new IllegalArgumentException("partition " + p + " has no shard");
      }
    }
  }

  /** Reads a shard-map file. */
  public static ShardMap read(Path file) throws IOException {
    try {
      return parse(Files.readString(file, StandardCharsets.UTF_8));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
    }
  }

  /**
   * The shard map a node of the cluster serves ({@code GET /cluster} on its read port, any primary
   * or replica whose {@code docstore.cluster.shard-map} is set): one address finds them all.
   *
   * @param node the node's read URL, e.g. {@code http://10.0.0.1:8080}
   * @throws IOException if the node cannot be reached or answers other than 200 (a node without a
   *     map answers 404)
   */
  public static ShardMap fetch(java.net.URI node, java.time.Duration timeout) throws IOException {
    java.net.http.HttpClient http =
        java.net.http.HttpClient.newBuilder().connectTimeout(timeout).build();
    java.net.http.HttpResponse<String> r;
    try {
      r =
          http.send(
              java.net.http.HttpRequest.newBuilder(node.resolve("/cluster"))
                  .timeout(timeout)
                  .GET()
                  .build(),
              java.net.http.HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while fetching the shard map");
    }
    if (r.statusCode() != 200) {
      throw new IOException(
          node.resolve("/cluster") + " answered " + r.statusCode() + ": " + r.body().strip());
    }
    return parse(r.body());
  }

  /**
   * Parses the text of a shard map (the class comment shows one).
   *
   * @throws IllegalArgumentException naming the line that is wrong and why
   */
  public static ShardMap parse(String text) {
    int partitions = -1;
    List<Shard> shards = new ArrayList<>();
    String[] lines = text.split("\n", -1);
    for (int n = 0; n < lines.length; n++) {
      String line = lines[n].strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String[] f = line.split("\\s+");
      try {
        if (f[0].equals("partitions") && f.length == 2 && partitions < 0) {
          partitions = Integer.parseInt(f[1]);
        } else if (f[0].equals("shard") && f.length >= 4) {
          List<InetSocketAddress> servers = new ArrayList<>();
          for (int i = 3; i < f.length; i++) {
            servers.add(address(f[i]));
          }
          List<Integer> serving = new ArrayList<>();
          List<Integer> building = new ArrayList<>();
          for (String part : f[2].equals("-") ? new String[0] : f[2].split(",")) {
            boolean plus = part.startsWith("+");
            (plus ? building : serving).addAll(partitionList(plus ? part.substring(1) : part));
          }
          shards.add(new Shard(f[1], serving, building, servers));
        } else {
          throw new IllegalArgumentException(
              "expected `partitions N` once, then `shard NAME PARTITIONS HOST:PORT...`");
        }
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("line " + (n + 1) + ": " + e.getMessage(), e);
      }
    }
    if (partitions < 0) {
      throw new IllegalArgumentException("no `partitions N` line");
    }
    return new ShardMap(partitions, shards);
  }

  /** {@code 3} or {@code 0-3}: the partitions of one range, both ends included. */
  private static List<Integer> partitionList(String part) {
    int dash = part.indexOf('-');
    int from = number(dash < 0 ? part : part.substring(0, dash));
    int to = dash < 0 ? from : number(part.substring(dash + 1));
    if (to < from) {
      throw new IllegalArgumentException("partition range " + part + " runs backwards");
    }
    List<Integer> out = new ArrayList<>();
    for (int p = from; p <= to; p++) {
      out.add(p);
    }
    return out;
  }

  /** A partition number: digits only (no sign). */
  private static int number(String s) {
    if (s.isEmpty() || !s.chars().allMatch(c -> c >= '0' && c <= '9')) {
      throw new IllegalArgumentException("not a partition number: '" + s + "'");
    }
    return Integer.parseInt(s);
  }

  private static InetSocketAddress address(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    if (colon <= 0) {
      throw new IllegalArgumentException("not HOST:PORT: " + hostPort);
    }
    return new InetSocketAddress(
        hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
  }

  /** The partition count of the update log's topic. */
  public int partitions() {
    return partitions;
  }

  public List<Shard> shards() {
    return shards;
  }

  /** The index in {@link #shards()} of the shard serving document {@code id}. */
  public int shardOf(long id) {
    return shardOf[KafkaKeys.partitionFor(id, partitions)];
  }

  /** The index in {@link #shards()} of the shard serving {@code partition}. */
  public int shardOfPartition(int partition) {
    return shardOf[partition];
  }

  /** The shard named {@code name}, or null. */
  public Shard shard(String name) {
    for (Shard s : shards) {
      if (s.name().equals(name)) {
        return s;
      }
    }
    return null;
  }

  /**
   * This map with shard {@code to} also building {@code partition} (the first step of moving it
   * there); this map itself if {@code to} already builds or serves it.
   */
  public ShardMap building(int partition, String to) {
    Shard target = requireShard(to);
    checkPartition(partition);
    if (target.partitions().contains(partition) || target.building().contains(partition)) {
      return this;
    }
    List<Shard> out = new ArrayList<>();
    for (Shard s : shards) {
      if (s == target) {
        List<Integer> b = new ArrayList<>(s.building());
        b.add(partition);
        out.add(new Shard(s.name(), s.partitions(), b, s.servers()));
      } else {
        out.add(s);
      }
    }
    return new ShardMap(partitions, out);
  }

  /**
   * This map with {@code partition} served by shard {@code to} instead of its current shard (the
   * last step of moving it: no longer built there, no longer served by the other, which may be left
   * with none: it is being emptied, and can leave the map once its primary dropped it).
   */
  public ShardMap moved(int partition, String to) {
    requireShard(to);
    checkPartition(partition);
    List<Shard> out = new ArrayList<>();
    for (Shard s : shards) {
      List<Integer> serving = new ArrayList<>(s.partitions());
      List<Integer> b = new ArrayList<>(s.building());
      serving.remove(Integer.valueOf(partition));
      if (s.name().equals(to)) {
        b.remove(Integer.valueOf(partition));
        serving.add(partition);
        serving.sort(null);
      }
      out.add(new Shard(s.name(), serving, b, s.servers()));
    }
    return new ShardMap(partitions, out);
  }

  private Shard requireShard(String name) {
    Shard s = shard(name);
    if (s == null) {
      throw new IllegalArgumentException("no shard '" + name + "' in the map");
    }
    return s;
  }

  private void checkPartition(int partition) {
    if (partition < 0 || partition >= partitions) {
      throw new IllegalArgumentException(
          "partition " + partition + " is not in [0, " + partitions + ")");
    }
  }

  /** The map as {@link #parse} reads it. */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("partitions ").append(partitions).append('\n');
    for (Shard s : shards) {
      sb.append("shard ").append(s.name()).append(' ');
      for (int i = 0; i < s.partitions().size(); i++) {
        sb.append(i == 0 ? "" : ",").append(s.partitions().get(i));
      }
      for (int i = 0; i < s.building().size(); i++) {
        sb.append(i == 0 && s.partitions().isEmpty() ? "+" : ",+").append(s.building().get(i));
      }
      if (s.partitions().isEmpty() && s.building().isEmpty()) {
        sb.append('-'); // a shard being emptied, or not given anything yet
      }
      for (InetSocketAddress a : s.servers()) {
        sb.append(' ').append(a.getHostString()).append(':').append(a.getPort());
      }
      sb.append('\n');
    }
    return sb.toString();
  }
}
