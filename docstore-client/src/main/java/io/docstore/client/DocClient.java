package io.docstore.client;

import io.docstore.client.DocClientException.Reason;
import io.docstore.client.wire.RpcFrames;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.Closeable;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Java client of docstore, usable without the rest of the service: reads over the binary RPC
 * ({@code docs/formats/rpc.md}) from the primary and its replicas, writes over the primary's admin
 * HTTP port. Every call has a blocking form and a {@link CompletableFuture} form ({@code
 * ...Async}).
 *
 * <p><b>Writes.</b> {@link #put}, {@link #delete} and {@link #putAll} go to the {@link
 * Builder#admin admin address} ({@code PUT|DELETE /docs/{id}}, {@code POST /docs/_bulk}, with the
 * {@link Builder#adminToken admin token} when one is set) and return once the server answered them
 * durable, with the sequence number each was acknowledged with (the version a read returns, and
 * what {@link #getAtLeast} waits for). Writes are not retried: one that timed out or lost its
 * connection may or may not have been applied, and sending it again is safe (the newest version
 * wins). Why HTTP and not an RPC write frame: docs/decisions.md, "A client module, docstore-client,
 * and writes over the admin port".
 *
 * <p><b>Balancing.</b> The client keeps one persistent, multiplexed connection to each server and
 * gives each server {@code slotsPerServer} slots. A request takes the lowest-numbered free slot
 * over all connected servers (Boxcar's rule, see {@link SlotTable}): load spreads as concurrency
 * rises, a slow server keeps its slots busy and so sheds work to the others, and a dead server
 * offers no slots until it reconnects. Each client orders the servers randomly, so many clients at
 * low load do not all favour the same one. When every slot is busy, a caller waits for one (up to
 * the request timeout); the slot count is therefore also the client's concurrency limit.
 *
 * <p><b>Failures.</b> Reads are idempotent: when a connection fails or a request times out, the
 * request is retried once on another server (on the same one only if no other is connected). A
 * server answering OVERLOADED or a document reported CORRUPT or ERROR is likewise asked once of
 * another server. Disconnected servers are reconnected in the background with backoff. Anything
 * still failing surfaces as {@link DocClientException}, whose {@link DocClientException#reason()}
 * says how it failed.
 *
 * <p><b>Replicas and read-your-writes.</b> Replicas lag the primary (bounded, measured). A caller
 * that must see its own write either (a) reads through a client built with only the primary's
 * address, or (b) keeps the sequence number the write was acknowledged with and calls {@link
 * #getAtLeast(long, long)}, which asks every server, in rounds until the request timeout, until one
 * returns that version or newer (a deletion carries no version on the read side, so confirm deletes
 * on the primary), or (c) on a shard fed by Kafka, keeps the {@link LogPosition} its {@link
 * DocProducer} write completed with and calls {@link #getAtLeast(long, LogPosition)}, which reads
 * from a server whose reads see that position (deletes included). docs/replication.md,
 * "Read-your-writes"; docs/kafka.md, "Read-your-writes".
 *
 * <p><b>Field groups.</b> {@link #getAll(long[], String)} reads a field group's projections (the
 * few fields a search page shows) instead of whole documents, with each document's version, over
 * the same connections and with the same balancing and retries; a group the server lacks is {@link
 * DocClientException.Reason#REJECTED}. docs/design/groups.md.
 *
 * <p><b>Futures.</b> The write futures complete on the JDK HTTP client's threads. The read futures
 * run the blocking call on the client's own threads, as many as the client has slots; further calls
 * queue for a thread, and their request timeout starts when one takes them.
 *
 * <p>Thread-safe; share one instance. {@link #close()} fails waiting callers.
 */
public final class DocClient implements Closeable {

  private final ServerConnection[] servers;
  private final SlotTable slots;
  private final EventLoopGroup group;
  private final long requestTimeoutNanos;
  private final int maxIdsPerRequest;
  private final Requests requests;
  private final ReadYourWrites readYourWrites;
  private final AdminWriter writer;
  private final ExecutorService asyncReads;
  private volatile boolean closed;

  private DocClient(Builder b) {
    List<InetSocketAddress> order = new ArrayList<>(b.servers);
    if (!order.isEmpty()) {
      Collections.rotate(order, ThreadLocalRandom.current().nextInt(order.size()));
    }
    this.slots = new SlotTable(order.size(), b.slotsPerServer);
    this.group =
        new MultiThreadIoEventLoopGroup(
            b.ioThreads, new DefaultThreadFactory("docclient", true), NioIoHandler.newFactory());
    this.requestTimeoutNanos = b.requestTimeout.toNanos();
    this.maxIdsPerRequest = b.maxIdsPerRequest;
    this.servers = new ServerConnection[order.size()];
    for (int i = 0; i < servers.length; i++) {
      servers[i] =
          new ServerConnection(i, order.get(i), slots, group, b.connectTimeout, b.maxResponseBytes);
    }
    for (ServerConnection s : servers) {
      s.connect();
    }
    this.requests = new Requests(servers, slots, requestTimeoutNanos);
    this.readYourWrites =
        new ReadYourWrites(
            servers.length, slots, requests, requestTimeoutNanos, this::checkOpen, this::addresses);
    this.asyncReads =
        Executors.newFixedThreadPool(
            Math.max(1, servers.length * b.slotsPerServer),
            new DefaultThreadFactory("docclient-async", true));
    this.writer =
        b.admin == null
            ? null
            : new AdminWriter(
                b.admin,
                b.adminToken,
                b.connectTimeout,
                b.writeTimeout,
                b.maxBulkDocuments,
                b.maxBulkBytes);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The newest version of {@code id}, or null when absent or deleted. */
  public Document get(long id) {
    return getAll(new long[] {id})[0];
  }

  /** {@link #get} as a future, run on the client's threads. */
  public CompletableFuture<Document> getAsync(long id) {
    return async(() -> get(id));
  }

  /** {@link #getAll} as a future, run on the client's threads. */
  public CompletableFuture<Document[]> getAllAsync(long[] ids) {
    long[] copy = ids.clone();
    return async(() -> getAll(copy));
  }

  /**
   * {@link #getAll(long[], String)} as a future, run on the client's threads; it fails with the
   * same {@link DocClientException}s (an unknown group: {@link Reason#REJECTED}).
   */
  public CompletableFuture<Document[]> getAllAsync(long[] ids, String group) {
    long[] copy = ids.clone();
    return async(() -> getAll(copy, group));
  }

  /** {@link #getAtLeast(long, long)} as a future, run on the client's threads. */
  public CompletableFuture<Document> getAtLeastAsync(long id, long minSequence) {
    return async(() -> getAtLeast(id, minSequence));
  }

  /** {@link #getAtLeast(long, LogPosition)} as a future, run on the client's threads. */
  public CompletableFuture<Document> getAtLeastAsync(long id, LogPosition written) {
    return async(() -> getAtLeast(id, written));
  }

  private <T> CompletableFuture<T> async(Supplier<T> read) {
    try {
      return CompletableFuture.supplyAsync(read, asyncReads);
    } catch (RejectedExecutionException e) {
      return CompletableFuture.failedFuture(
          new DocClientException(Reason.CLOSED, "the client is closed"));
    }
  }

  /**
   * Stores {@code json} (a JSON object, stored byte for byte) as the newest version of {@code id}
   * and returns the sequence number it was acknowledged with, once durable on the primary.
   *
   * @throws DocClientException {@link Reason#TOO_LARGE} above the server's {@code queue.max-body}
   *     (1 MiB by default), {@link Reason#REJECTED} for a body that is not a JSON object
   * @throws IllegalStateException if the client has no admin address
   */
  public long put(long id, byte[] json) {
    return await(putAsync(id, json));
  }

  /** {@link #put} as a future. */
  public CompletableFuture<Long> putAsync(long id, byte[] json) {
    return writer().put(id, json);
  }

  /**
   * Deletes {@code id} (recorded even when absent) and returns the deletion's sequence number, once
   * durable on the primary.
   */
  public long delete(long id) {
    return await(deleteAsync(id));
  }

  /** {@link #delete} as a future. */
  public CompletableFuture<Long> deleteAsync(long id) {
    return writer().delete(id);
  }

  /**
   * Stores every document of {@code docs} (ID to JSON object, each on one line) in one request with
   * one durability wait, and returns each ID's acknowledged sequence number. At most {@link
   * Builder#maxBulkDocuments} documents (default 10,000) and {@link Builder#maxBulkBytes} of
   * request body (default 32 MiB), the server's defaults ({@code bulk.max-lines}, {@code
   * bulk.max-body}): larger batches fail with {@link Reason#TOO_LARGE} before anything is sent. The
   * batch is not split: a caller that wants several requests makes several calls.
   *
   * @throws BulkWriteException when the server refused some documents (the others were applied)
   * @throws IllegalArgumentException for a document holding a line break (use {@link #put})
   */
  public Map<Long, Long> putAll(Map<Long, byte[]> docs) {
    return await(putAllAsync(docs));
  }

  /** {@link #putAll} as a future. */
  public CompletableFuture<Map<Long, Long>> putAllAsync(Map<Long, byte[]> docs) {
    return writer().putAll(docs);
  }

  private AdminWriter writer() {
    if (writer == null) {
      throw new IllegalStateException("writes need the primary's admin address (Builder.admin)");
    }
    return writer;
  }

  private void requireServers() {
    if (servers.length == 0) {
      throw new IllegalStateException("reads need at least one RPC server (Builder.servers)");
    }
  }

  /** The result of a write future, its {@link DocClientException} thrown as is. */
  private static <T> T await(CompletableFuture<T> f) {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DocClientException(
          Reason.INTERRUPTED, "interrupted; the write may or may not have been applied");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof DocClientException d) {
        throw d;
      }
      throw new DocClientException(Reason.SERVER_ERROR, e.getCause().toString(), e.getCause());
    }
  }

  /**
   * The newest versions of {@code ids}, one slot per ID in order, null where absent or deleted.
   * Batches above the per-request limit are split into several requests.
   */
  public Document[] getAll(long[] ids) {
    requireServers();
    for (long id : ids) {
      checkId(id);
    }
    return fetchAll(null, ids);
  }

  /**
   * Field group {@code group}'s projections of the newest versions of {@code ids} (GET_MANY_GROUP,
   * docs/design/groups.md), one slot per ID in order: each a {@link Document} whose body is the
   * projection (the JSON object of the document's fields in the group) and whose {@link
   * Document#sequence()} is the document's version; null where the document is absent, deleted or
   * expired, or has no projection for the group (written before the group was configured).
   * Balancing, retries, timeouts and the splitting of large batches are those of {@link
   * #getAll(long[])}.
   *
   * <p>A group the server does not have (or any group, on a server with none configured) fails with
   * {@link Reason#REJECTED}: the request is valid on the wire but the server refuses it, and asking
   * again or elsewhere will not help, which is what REJECTED means (not {@link
   * Reason#SERVER_ERROR}, which is the server failing, nor {@link Reason#TOO_LARGE}). The
   * exception's {@link DocClientException#serverMessage() serverMessage()} is the server's, naming
   * the groups it has; the message carries it too. It is not retried on another server: every
   * server a client reads from is expected to have the same groups. A server that predates group
   * reads answers {@code bad_opcode}, also {@link Reason#REJECTED}.
   *
   * @throws IllegalArgumentException for a negative ID, or a group name that is not 1 to 64 bytes
   *     of UTF-8 (checked before anything is sent)
   * @throws DocClientException as {@link #getAll(long[])}, and {@link Reason#REJECTED} for an
   *     unknown group
   */
  public Document[] getAll(long[] ids, String group) {
    requireServers();
    RpcFrames.groupName(group); // 1 to 64 bytes, or IllegalArgumentException
    for (long id : ids) {
      checkId(id);
    }
    return fetchAll(group, ids);
  }

  /** {@code ids} in requests of at most {@code maxIdsPerRequest}; {@code group} null for whole. */
  private Document[] fetchAll(String group, long[] ids) {
    Document[] out = new Document[ids.length];
    for (int from = 0; from < ids.length; from += maxIdsPerRequest) {
      int to = Math.min(ids.length, from + maxIdsPerRequest);
      int[] positions = new int[to - from];
      Arrays.setAll(positions, i -> i);
      fetch(group, Arrays.copyOfRange(ids, from, to), positions, out, from);
    }
    return out;
  }

  /**
   * Waits until some server returns {@code id} at version {@code minSequence} or newer (the
   * read-your-writes option for replicas). Each round asks every connected server once, one after
   * the other (starting at a different server each call, to spread the load), and returns the first
   * answer at {@code minSequence} or newer; rounds repeat, briefly spaced, until the request
   * timeout. Returns null if the document is absent everywhere it was asked: in a round where every
   * server that answered reported it absent (a deletion carries no version on the read side).
   *
   * @throws DocClientException if no server has that version within the request timeout
   */
  public Document getAtLeast(long id, long minSequence) {
    requireServers();
    checkId(id);
    return readYourWrites.atLeast(id, minSequence);
  }

  /**
   * Reads {@code id} as it is once the write at {@code written} is visible: the read-your-writes
   * option for shards fed by Kafka ({@code written} is what {@link DocProducer#put} or {@link
   * DocProducer#delete} of {@code id} completed with). Each round asks every connected server, one
   * after the other, how far its reads see partition {@code written.partition()} (RPC POSITION) and
   * reads the document from the first whose next offset is past {@code written.offset()}; rounds
   * repeat, briefly spaced, until the request timeout. A server at that point has put the write and
   * every earlier message of the partition into what its reads see.
   *
   * <p>Guarantee: the answer is the document as the write left it, or a newer state of it: a later
   * write, or a delete (then null, also when the write itself was a delete), or an expiry. It never
   * is an older version. A write the shard refused as a dead letter (docs/kafka.md) is passed over
   * without ever being readable: the answer is then the state before it. Costs one POSITION request
   * per server asked and one read; a server's answer is a figure it keeps as it indexes (no fsync,
   * no disk read).
   *
   * @throws DocClientException {@link Reason#TIMEOUT} if no server has that partition past that
   *     offset within the request timeout (the message names the highest position seen, or that no
   *     server holds anything of that partition), {@link Reason#REJECTED} from a server that
   *     predates POSITION (naming it)
   * @throws IllegalArgumentException for a negative ID, partition or offset
   */
  public Document getAtLeast(long id, LogPosition written) {
    requireServers();
    checkId(id);
    if (written.partition() < 0 || written.offset() < 0) {
      throw new IllegalArgumentException("not a position in the update log: " + written);
    }
    return readYourWrites.past(id, written);
  }

  private static void checkId(long id) {
    if (id < 0) {
      throw new IllegalArgumentException("negative document ID " + id);
    }
  }

  /**
   * Fetches {@code ids} (at most one request's worth) into {@code out[base + positions[i]]}: whole
   * documents, or {@code group}'s projections when it is not null.
   */
  private void fetch(String group, long[] ids, int[] positions, Document[] out, int base) {
    long[] todo = ids;
    int[] todoPos = positions;
    int avoid = -1;
    boolean retried = false;
    while (todo.length > 0) {
      Requests.Attempt a = attempt(group, todo, todoPos, out, base, avoid);
      if (a.failure != null) {
        if (retried) {
          throw a.failure;
        }
        retried = true;
        avoid = a.server;
        continue;
      }
      if (a.retryIds.length > 0) {
        if (retried) {
          throw new DocClientException(Reason.SERVER_ERROR, a.retryReason);
        }
        retried = true;
        avoid = a.server;
      }
      // NOT_SENT entries are asked again without counting as a retry: the server made progress.
      todo = Requests.concat(a.retryIds, a.notSentIds);
      todoPos = Requests.concat(a.retryPos, a.notSentPos);
    }
  }

  private Requests.Attempt attempt(
      String group, long[] ids, int[] positions, Document[] out, int base, int avoid) {
    return requests.call(
        acquire(avoid, System.nanoTime() + requestTimeoutNanos), group, ids, positions, out, base);
  }

  private int acquire(int avoid, long deadline) {
    checkOpen();
    try {
      int slot = slots.acquire(avoid, deadline - System.nanoTime());
      if (slot >= 0) {
        return slot;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DocClientException(Reason.INTERRUPTED, "interrupted while waiting for a free slot");
    }
    checkOpen();
    for (int i = 0; i < servers.length; i++) {
      if (slots.isUp(i)) {
        throw new DocClientException(
            Reason.TIMEOUT,
            "no free slot within the request timeout: every slot of the connected servers is busy ("
                + addresses()
                + ")");
      }
    }
    throw new DocClientException(
        Reason.UNREACHABLE, "no server connected within the request timeout (" + addresses() + ")");
  }

  private void checkOpen() {
    if (closed) {
      throw new DocClientException(Reason.CLOSED, "the client is closed");
    }
  }

  /** Whether the connection to {@code server} (one of the builder's addresses) is up. */
  public boolean isConnected(InetSocketAddress server) {
    for (int i = 0; i < servers.length; i++) {
      if (servers[i].address().equals(server)) {
        return slots.isUp(i);
      }
    }
    throw new IllegalArgumentException(server + " is not one of this client's servers");
  }

  private List<InetSocketAddress> addresses() {
    List<InetSocketAddress> list = new ArrayList<>();
    for (ServerConnection s : servers) {
      list.add(s.address());
    }
    return list;
  }

  /**
   * Closes every connection; callers waiting for a slot fail, and so do later calls. Writes already
   * sent are not cancelled.
   */
  @Override
  public void close() {
    closed = true;
    if (writer != null) {
      writer.close();
    }
    slots.close();
    for (ServerConnection s : servers) {
      s.close();
    }
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
    asyncReads.shutdown(); // queued reads still run, and fail at once: the client is closed
  }

  /** Builder of a {@link DocClient}. */
  public static final class Builder {
    private List<InetSocketAddress> servers = List.of();
    private int slotsPerServer = 8;
    private Duration connectTimeout = Duration.ofSeconds(1);
    private Duration requestTimeout = Duration.ofSeconds(2);
    private int maxIdsPerRequest = 1000;
    private int maxResponseBytes = 64 << 20;
    private int ioThreads = 1;
    private InetSocketAddress admin;
    private String adminToken;
    private Duration writeTimeout = Duration.ofSeconds(10);
    private int maxBulkDocuments = 10_000;
    private int maxBulkBytes = 32 << 20;

    private Builder() {}

    /**
     * The RPC servers to spread reads over (primary and replicas); none for a client that only
     * writes.
     */
    public Builder servers(List<InetSocketAddress> v) {
      servers = List.copyOf(v);
      return this;
    }

    /** Concurrent requests per server (default 8). */
    public Builder slotsPerServer(int v) {
      slotsPerServer = v;
      return this;
    }

    /** TCP connect timeout (default 1 s). */
    public Builder connectTimeout(Duration v) {
      connectTimeout = v;
      return this;
    }

    /** Time one attempt may take, including waiting for a slot (default 2 s). */
    public Builder requestTimeout(Duration v) {
      requestTimeout = v;
      return this;
    }

    /** IDs per request; must not exceed the servers' limit (default 1,000, the server default). */
    public Builder maxIdsPerRequest(int v) {
      maxIdsPerRequest = v;
      return this;
    }

    /** Largest response frame accepted (default 64 MiB, the server default). */
    public Builder maxResponseBytes(int v) {
      maxResponseBytes = v;
      return this;
    }

    /** The primary's admin HTTP port, where writes go; none for a client that only reads. */
    public Builder admin(InetSocketAddress v) {
      admin = v;
      return this;
    }

    /** The admin token ({@code http.admin.token}), sent as {@code Authorization: Bearer}. */
    public Builder adminToken(String v) {
      adminToken = v;
      return this;
    }

    /**
     * Time a write may take until the server answers (default 10 s; the server answers once the
     * write is durable, so this covers its fsync).
     */
    public Builder writeTimeout(Duration v) {
      writeTimeout = v;
      return this;
    }

    /**
     * Most documents in one {@code putAll} (default 10,000, the server's {@code bulk.max-lines}).
     */
    public Builder maxBulkDocuments(int v) {
      maxBulkDocuments = v;
      return this;
    }

    /**
     * Largest {@code putAll} request body in bytes, documents plus about 20 bytes each of framing
     * (default 32 MiB, the server's {@code bulk.max-body}).
     */
    public Builder maxBulkBytes(int v) {
      maxBulkBytes = v;
      return this;
    }

    /** Netty event loop threads (default 1). */
    public Builder ioThreads(int v) {
      ioThreads = v;
      return this;
    }

    /** Builds the client and starts connecting to every server in the background. */
    public DocClient build() {
      if (servers.isEmpty() && admin == null) {
        throw new IllegalArgumentException("DocClient needs an RPC server or an admin address");
      }
      if (slotsPerServer <= 0
          || maxIdsPerRequest <= 0
          || ioThreads <= 0
          || maxBulkDocuments <= 0
          || maxBulkBytes <= 0) {
        throw new IllegalArgumentException("slots, batch sizes and threads must be positive");
      }
      for (Duration d : List.of(connectTimeout, requestTimeout, writeTimeout)) {
        if (d.isNegative() || d.isZero()) {
          throw new IllegalArgumentException("timeouts must be positive");
        }
      }
      return new DocClient(this);
    }
  }
}
