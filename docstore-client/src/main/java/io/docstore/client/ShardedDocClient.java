package io.docstore.client;

import java.io.Closeable;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.UnaryOperator;

/**
 * Reads from shards fed by the update log: one {@link DocClient} per shard of a {@link ShardMap}
 * (over that shard's primary and replicas, with their balancing and retries), each ID sent to the
 * shard serving its partition. A multi-get asks every shard it needs in parallel and puts the
 * answers back in the order asked; {@link #getAtLeast(long, LogPosition)} reads a producer's own
 * write. Thread-safe; share one instance.
 */
public final class ShardedDocClient implements Closeable {

  private final ShardMap map;
  private final List<DocClient> clients;

  /**
   * @param configure sets what each shard's client shares (timeouts, slots); the servers come from
   *     the map
   */
  public static ShardedDocClient open(ShardMap map, UnaryOperator<DocClient.Builder> configure) {
    List<DocClient> clients = new ArrayList<>();
    try {
      for (ShardMap.Shard s : map.shards()) {
        clients.add(configure.apply(DocClient.builder()).servers(s.servers()).build());
      }
    } catch (RuntimeException e) {
      clients.forEach(DocClient::close);
      throw e;
    }
    return new ShardedDocClient(map, clients);
  }

  private ShardedDocClient(ShardMap map, List<DocClient> clients) {
    this.map = map;
    this.clients = clients;
  }

  public ShardMap map() {
    return map;
  }

  /** The newest version of {@code id}, from the shard serving it; null if absent. */
  public Document get(long id) {
    return clients.get(map.shardOf(id)).get(id);
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
    int partition = KafkaKeys.partitionFor(id, map.partitions());
    if (written.partition() != partition) {
      throw new IllegalArgumentException(
          "document "
              + id
              + " is in partition "
              + partition
              + " of "
              + map.partitions()
              + ", but the position is in partition "
              + written.partition());
    }
    return clients.get(map.shardOf(id)).getAtLeast(id, written);
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
    int shards = clients.size();
    int[] count = new int[shards];
    int[] shardOfId = new int[ids.length];
    for (int i = 0; i < ids.length; i++) {
      shardOfId[i] = map.shardOf(ids[i]);
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
      DocClient c = clients.get(s);
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
  public void close() {
    clients.forEach(DocClient::close);
  }
}
