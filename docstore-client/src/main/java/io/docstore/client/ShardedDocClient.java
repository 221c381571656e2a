package io.docstore.client;

import io.docstore.client.DocClientException.Reason;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * Reads from shards fed by the update log: one {@link DocClient} per shard of a {@link ShardMap}
 * (over that shard's primary and replicas, with their balancing and retries), each ID sent to the
 * shard serving its partition. A multi-get asks every shard it needs in parallel and puts the
 * answers back in the order asked; {@link #getAtLeast(long, LogPosition)} reads a producer's own
 * write.
 *
 * <p>A client made by {@link #connect} follows the cluster's map: when a server answers {@link
 * Reason#WRONG_SHARD} (its shard no longer serves the document's partition, as when a partition has
 * moved), the client fetches the map again from the nodes it was given and retries, for up to
 * {@link #REROUTE_WAIT} while the map it fetches still sends the ID to a shard that refuses it.
 * Clients of a shard whose servers stay the same are kept across maps. Thread-safe; share one
 * instance.
 */
public final class ShardedDocClient implements Closeable {

  /** How long a read keeps fetching the map again while servers answer wrong_shard. */
  public static final Duration REROUTE_WAIT = Duration.ofSeconds(10);

  /** One map and a client per shard of it. */
  private record Routing(ShardMap map, List<DocClient> clients) {}

  private final UnaryOperator<DocClient.Builder> configure;
  private final List<URI> nodes;
  private final Duration fetchTimeout;

  /** Every client made, by its servers: reused by later maps, closed by {@link #close}. */
  private final Map<List<InetSocketAddress>, DocClient> byServers = new HashMap<>();

  private volatile Routing routing;

  /**
   * A client of the shards of {@code map}, which it keeps for good.
   *
   * @param configure sets what each shard's client shares (timeouts, slots); the servers come from
   *     the map
   */
  public static ShardedDocClient open(ShardMap map, UnaryOperator<DocClient.Builder> configure) {
    ShardedDocClient c = new ShardedDocClient(configure, List.of(), Duration.ZERO);
    try {
      c.routing = c.routing(map);
    } catch (RuntimeException e) {
      c.close();
      throw e;
    }
    return c;
  }

  /**
   * A client of the cluster whose shard map {@code nodes} serve ({@code GET /cluster} on their read
   * ports, docs/formats/shard-map.md), which follows the map as it changes.
   *
   * @param nodes read URLs of nodes of the cluster, e.g. {@code http://10.0.0.1:8080}; the map is
   *     fetched from the first that answers
   * @throws IOException if no node answers with a map within {@code timeout} each
   */
  public static ShardedDocClient connect(
      List<URI> nodes, Duration timeout, UnaryOperator<DocClient.Builder> configure)
      throws IOException {
    if (nodes.isEmpty()) {
      throw new IllegalArgumentException("no node to fetch the shard map from");
    }
    ShardedDocClient c = new ShardedDocClient(configure, List.copyOf(nodes), timeout);
    try {
      c.routing = c.routing(c.fetch());
    } catch (IOException | RuntimeException e) {
      c.close();
      throw e;
    }
    return c;
  }

  private ShardedDocClient(
      UnaryOperator<DocClient.Builder> configure, List<URI> nodes, Duration fetchTimeout) {
    this.configure = configure;
    this.nodes = nodes;
    this.fetchTimeout = fetchTimeout;
  }

  /** The shard map the client routes by now. */
  public ShardMap map() {
    return routing.map();
  }

  private synchronized Routing routing(ShardMap map) {
    List<DocClient> clients = new ArrayList<>();
    for (ShardMap.Shard s : map.shards()) {
      DocClient c = byServers.get(s.servers());
      if (c == null) {
        c = configure.apply(DocClient.builder()).servers(s.servers()).build();
        byServers.put(s.servers(), c);
      }
      clients.add(c);
    }
    return new Routing(map, clients);
  }

  private ShardMap fetch() throws IOException {
    IOException last = null;
    for (URI node : nodes) {
      try {
        return ShardMap.fetch(node, fetchTimeout);
      } catch (IOException | IllegalArgumentException e) {
        IOException io =
            e instanceof IOException x ? x : new IOException(node + ": " + e.getMessage(), e);
        if (last != null) {
          io.addSuppressed(last);
        }
        last = io;
      }
    }
    throw last;
  }

  /**
   * Runs {@code read} against the current routing; on {@code wrong_shard}, fetches the map again
   * (waiting briefly while it is unchanged) and runs it again, until {@link #REROUTE_WAIT}.
   */
  private <T> T routed(Function<Routing, T> read) {
    long deadline = System.nanoTime() + REROUTE_WAIT.toNanos();
    while (true) {
      Routing r = routing;
      try {
        return read.apply(r);
      } catch (DocClientException e) {
        if (e.reason() != Reason.WRONG_SHARD || nodes.isEmpty() || System.nanoTime() > deadline) {
          throw e;
        }
        reroute(r, e);
      }
    }
  }

  /** Takes the map the nodes serve now if it differs from {@code seen}'s; else waits 50 ms. */
  private void reroute(Routing seen, DocClientException cause) {
    ShardMap fresh;
    try {
      fresh = fetch();
    } catch (IOException e) {
      cause.addSuppressed(e);
      throw cause;
    }
    synchronized (this) {
      if (routing == seen && !fresh.toString().equals(seen.map().toString())) {
        routing = routing(fresh);
        return;
      }
    }
    try {
      TimeUnit.MILLISECONDS.sleep(50);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DocClientException(Reason.INTERRUPTED, "interrupted while rerouting");
    }
  }

  /** The newest version of {@code id}, from the shard serving it; null if absent. */
  public Document get(long id) {
    return routed(r -> r.clients().get(r.map().shardOf(id)).get(id));
  }

  /**
   * {@link DocClient#getAtLeast(long, LogPosition)} on the shard serving {@code id}: the document
   * as the write at {@code written} left it, or newer (null once deleted), read from one of that
   * shard's servers whose reads see the write.
   *
   * @throws IllegalArgumentException if {@code written} is in another partition than the one {@code
   *     id}'s records go to (it is not a position of a write of that document)
   * @throws DocClientException as the shard's client throws it
   */
  public Document getAtLeast(long id, LogPosition written) {
    int partitions = routing.map().partitions();
    int partition = KafkaKeys.partitionFor(id, partitions);
    if (written.partition() != partition) {
      throw new IllegalArgumentException(
          "document "
              + id
              + " is in partition "
              + partition
              + " of "
              + partitions
              + ", but the position is in partition "
              + written.partition());
    }
    return routed(r -> r.clients().get(r.map().shardOf(id)).getAtLeast(id, written));
  }

  /** {@link DocClient#getAll(long[])} over the shards: one slot per ID, in order. */
  public Document[] getAll(long[] ids) {
    return getAll(ids, null);
  }

  /**
   * {@link DocClient#getAll(long[], String)} over the shards (whole documents when {@code group} is
   * null): the IDs split by shard, each shard asked at once, the answers merged in order.
   *
   * @throws DocClientException as the shard's client throws it (the first failure)
   */
  public Document[] getAll(long[] ids, String group) {
    return routed(r -> getAll(r, ids, group));
  }

  private static Document[] getAll(Routing r, long[] ids, String group) {
    int shards = r.clients().size();
    int[] count = new int[shards];
    int[] shardOfId = new int[ids.length];
    for (int i = 0; i < ids.length; i++) {
      shardOfId[i] = r.map().shardOf(ids[i]);
      count[shardOfId[i]]++;
    }
    long[][] perShard = new long[shards][];
    int[][] positions = new int[shards][];
    for (int s = 0; s < shards; s++) {
      perShard[s] = new long[count[s]];
      positions[s] = new int[count[s]];
    }
    int[] filled = new int[shards];
    for (int i = 0; i < ids.length; i++) {
      int s = shardOfId[i];
      perShard[s][filled[s]] = ids[i];
      positions[s][filled[s]++] = i;
    }
    List<CompletableFuture<Document[]>> asked = new ArrayList<>(shards);
    for (int s = 0; s < shards; s++) {
      DocClient c = r.clients().get(s);
      asked.add(
          count[s] == 0
              ? CompletableFuture.completedFuture(new Document[0])
              : group == null ? c.getAllAsync(perShard[s]) : c.getAllAsync(perShard[s], group));
    }
    Document[] out = new Document[ids.length];
    for (int s = 0; s < shards; s++) {
      Document[] got;
      try {
        got = asked.get(s).join();
      } catch (CompletionException e) {
        if (e.getCause() instanceof DocClientException d) {
          throw d;
        }
        throw e;
      }
      for (int k = 0; k < got.length; k++) {
        out[positions[s][k]] = got[k];
      }
    }
    return out;
  }

  @Override
  public synchronized void close() {
    byServers.values().forEach(DocClient::close);
    byServers.clear();
  }
}
