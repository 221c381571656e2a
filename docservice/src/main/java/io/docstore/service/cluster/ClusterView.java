package io.docstore.service.cluster;

import io.docstore.client.KafkaKeys;
import io.docstore.client.ShardMap;
import io.docstore.io.AtomicFiles;
import io.docstore.io.FileSystem;
import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shard map as this node sees it now: the file named by {@code docstore.cluster.shard-map},
 * read again every second and taken when its text changed and it is valid, or a map pushed to the
 * node ({@link #push}, {@code PUT /cluster}), which is written over that file (a map that does not
 * parse, that changes the partition count or that lacks this node's shard is logged and ignored:
 * the node keeps the last good one). With {@code docstore.cluster.shard} set, the node checks
 * routing: {@link #misrouted} says why a document is not served here (its partition is served by
 * another shard, or only being built here), and listeners learn what the shard consumes.
 *
 * <p>Thread-safe: readers see one map at a time, swapped atomically.
 */
public final class ClusterView implements Closeable {

  private static final Logger log = LoggerFactory.getLogger(ClusterView.class);

  /** One map and what this node makes of it. */
  private record State(ShardMap map, String text, boolean[] served) {}

  private final Path file;
  private final String shard;
  private final List<Consumer<ShardMap>> listeners = new CopyOnWriteArrayList<>();
  private final ScheduledExecutorService reloader;
  private volatile State state;
  private String lastRejected;

  private ClusterView(Path file, String shard, ShardMap map) {
    this.file = file;
    this.shard = shard;
    this.state = state(map);
    this.reloader =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "docstore-shard-map");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Starts watching {@code file}, whose current content is {@code map} (read and checked by the
   * configuration).
   *
   * @param shard this node's shard in the map, or null to serve every document asked
   */
  public static ClusterView watch(Path file, String shard, ShardMap map) {
    ClusterView v = new ClusterView(file, shard, map);
    v.reloader.scheduleWithFixedDelay(v::reloadQuietly, 1, 1, TimeUnit.SECONDS);
    return v;
  }

  /** The view a node configured with {@code cfg} keeps, or null when it has no shard map. */
  public static ClusterView of(io.docstore.service.config.DocstoreConfig cfg) {
    return cfg.shardMapFile() == null
        ? null
        : watch(cfg.shardMapFile(), cfg.clusterShard(), cfg.shardMap());
  }

  private State state(ShardMap map) {
    boolean[] served = new boolean[map.partitions()];
    if (shard == null) {
      java.util.Arrays.fill(served, true);
    } else {
      for (int p : map.shard(shard).partitions()) {
        served[p] = true;
      }
    }
    return new State(map, map.toString(), served);
  }

  /** The map now. */
  public ShardMap map() {
    return state.map();
  }

  /** The map now, as {@code GET /cluster} serves it. */
  public String text() {
    return state.text();
  }

  /** This node's shard, or null when it checks no routing. */
  public String shard() {
    return shard;
  }

  /**
   * Null when this node serves document {@code id}, else why not (for the {@code wrong_shard} error
   * and the 421 answer): the partition and the shard serving it.
   */
  public String misrouted(long id) {
    if (shard == null) {
      return null;
    }
    State s = state;
    int p = KafkaKeys.partitionFor(id, s.served().length);
    if (s.served()[p]) {
      return null;
    }
    ShardMap.Shard owner = s.map().shards().get(s.map().shardOfPartition(p));
    return "document "
        + id
        + " is in partition "
        + p
        + ", served by shard "
        + owner.name()
        + ", not by shard "
        + shard
        + ": fetch the shard map again (GET /cluster)";
  }

  /** Called with every new map, on the reloading thread, after it is in place. */
  public void onChange(Consumer<ShardMap> listener) {
    listeners.add(listener);
  }

  /**
   * Reads the file now; true when it held a new valid map, now in place.
   *
   * @throws IOException if the file cannot be read
   * @throws IllegalArgumentException if it holds a map this node cannot take, and why
   */
  public synchronized boolean reload() throws IOException {
    ShardMap map = check(Files.readString(file, StandardCharsets.UTF_8));
    if (map == null) {
      return false;
    }
    take(map, "shard map " + file + " changed");
    return true;
  }

  /**
   * Takes a map pushed to this node ({@code PUT /cluster}): checked as a reloaded file is, then
   * written over this node's map file (atomically, so a restart starts from it) and put in place.
   *
   * @return the map now in force (the same as before if {@code text} holds no change)
   * @throws IllegalArgumentException if this node cannot take it, and why (nothing changes)
   * @throws IOException if the file cannot be written (nothing changes)
   */
  public synchronized ShardMap push(String text) throws IOException {
    ShardMap map = check(text);
    if (map == null) {
      return state.map();
    }
    AtomicFiles.publish(FileSystem.real(), file, map.toString().getBytes(StandardCharsets.UTF_8));
    take(map, "shard map pushed, written to " + file);
    return map;
  }

  /**
   * The map in {@code text} if this node can take it and it differs from the current; else null.
   */
  private ShardMap check(String text) {
    ShardMap map = ShardMap.parse(text);
    State old = state;
    if (map.toString().equals(old.text())) {
      return null;
    }
    if (map.partitions() != old.map().partitions()) {
      throw new IllegalArgumentException(
          "the partition count changed from "
              + old.map().partitions()
              + " to "
              + map.partitions()
              + " (a topic's partitions are fixed: a new count needs a new topic and cluster)");
    }
    if (shard != null && map.shard(shard) == null) {
      throw new IllegalArgumentException("it has no shard '" + shard + "', this node's shard");
    }
    return map;
  }

  private void take(ShardMap map, String why) {
    state = state(map);
    log.info("{}; now:\n{}", why, state.text().strip());
    for (Consumer<ShardMap> l : listeners) {
      l.accept(map);
    }
  }

  private void reloadQuietly() {
    try {
      reload();
      lastRejected = null;
    } catch (IOException | RuntimeException e) {
      String why = String.valueOf(e.getMessage());
      if (!why.equals(lastRejected)) { // once per distinct problem, not every second
        lastRejected = why;
        log.error("shard map {} not taken, keeping the last good one: {}", file, why);
      }
    }
  }

  @Override
  public void close() {
    reloader.shutdownNow();
  }
}
