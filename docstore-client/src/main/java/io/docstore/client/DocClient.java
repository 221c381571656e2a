package io.docstore.client;

import io.docstore.client.wire.RpcFormat;
import io.docstore.client.wire.RpcResponse;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Java client of the binary RPC read API ({@code docs/formats/rpc.md}), usable without the rest of
 * the service.
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
 * still failing surfaces as {@link DocClientException}.
 *
 * <p><b>Replicas and read-your-writes.</b> Replicas lag the primary (bounded, measured). A caller
 * that must see its own write either (a) reads through a client built with only the primary's
 * address, or (b) keeps the sequence number the write was acknowledged with and calls {@link
 * #getAtLeast(long, long)}, which asks every server, in rounds until the request timeout, until one
 * returns that version or newer. A deletion carries no version on the read side, so confirm deletes
 * on the primary. docs/replication.md, "Read-your-writes".
 *
 * <p>Thread-safe; share one instance. {@link #close()} fails waiting callers.
 */
public final class DocClient implements Closeable {

  private final ServerConnection[] servers;
  private final SlotTable slots;
  private final EventLoopGroup group;
  private final long requestTimeoutNanos;
  private final int maxIdsPerRequest;
  private final AtomicLong requestIds = new AtomicLong();

  private DocClient(Builder b) {
    List<InetSocketAddress> order = new ArrayList<>(b.servers);
    Collections.rotate(order, ThreadLocalRandom.current().nextInt(order.size()));
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
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The newest version of {@code id}, or null when absent or deleted. */
  public Document get(long id) {
    return getAll(new long[] {id})[0];
  }

  /**
   * The newest versions of {@code ids}, one slot per ID in order, null where absent or deleted.
   * Batches above the per-request limit are split into several requests.
   */
  public Document[] getAll(long[] ids) {
    for (long id : ids) {
      if (id < 0) {
        throw new IllegalArgumentException("negative document ID " + id);
      }
    }
    Document[] out = new Document[ids.length];
    for (int from = 0; from < ids.length; from += maxIdsPerRequest) {
      int to = Math.min(ids.length, from + maxIdsPerRequest);
      int[] positions = new int[to - from];
      Arrays.setAll(positions, i -> i);
      fetch(Arrays.copyOfRange(ids, from, to), positions, out, from);
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
    if (id < 0) {
      throw new IllegalArgumentException("negative document ID " + id);
    }
    long deadline = System.nanoTime() + requestTimeoutNanos;
    Document newest = null;
    DocClientException lastFailure = null;
    int first = (int) Math.floorMod(requestIds.get(), (long) servers.length);
    while (true) {
      int answered = 0;
      int present = 0;
      for (int k = 0; k < servers.length; k++) {
        int server = (first + k) % servers.length;
        if (!slots.isUp(server)) {
          continue;
        }
        Document[] one = new Document[1];
        Attempt a = attemptOn(server, id, one, deadline);
        if (a == null) {
          continue; // disconnected meanwhile, or no free slot in time
        }
        if (a.failure != null || a.retryIds.length > 0) {
          lastFailure = a.failure != null ? a.failure : new DocClientException(a.retryReason);
          continue;
        }
        answered++;
        Document doc = one[0];
        if (doc != null) {
          present++;
          if (doc.sequence() >= minSequence) {
            return doc;
          }
          if (newest == null || doc.sequence() > newest.sequence()) {
            newest = doc;
          }
        }
      }
      if (answered > 0 && present == 0) {
        return null;
      }
      if (System.nanoTime() >= deadline) {
        String msg =
            "no server has document "
                + id
                + " at sequence >= "
                + minSequence
                + " (newest seen: "
                + (newest == null ? "none" : newest.sequence())
                + ")";
        throw lastFailure == null
            ? new DocClientException(msg)
            : new DocClientException(
                msg + "; last failure: " + lastFailure.getMessage(), lastFailure);
      }
      sleepBriefly();
    }
  }

  /**
   * One single-ID request to {@code server}, or null if it offered no slot before {@code deadline}.
   */
  private Attempt attemptOn(int server, long id, Document[] out, long deadline) {
    int slot;
    try {
      slot = slots.acquireOn(server, deadline - System.nanoTime());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DocClientException("interrupted while waiting for a free slot");
    }
    return slot < 0 ? null : call(slot, new long[] {id}, new int[1], out, 0);
  }

  private static void sleepBriefly() {
    try {
      TimeUnit.MILLISECONDS.sleep(5);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DocClientException("interrupted");
    }
  }

  /** Fetches {@code ids} (at most one request's worth) into {@code out[base + positions[i]]}. */
  private void fetch(long[] ids, int[] positions, Document[] out, int base) {
    long[] todo = ids;
    int[] todoPos = positions;
    int avoid = -1;
    boolean retried = false;
    while (todo.length > 0) {
      Attempt a = attempt(todo, todoPos, out, base, avoid);
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
          throw new DocClientException(a.retryReason);
        }
        retried = true;
        avoid = a.server;
      }
      // NOT_SENT entries are asked again without counting as a retry: the server made progress.
      todo = concat(a.retryIds, a.notSentIds);
      todoPos = concat(a.retryPos, a.notSentPos);
    }
  }

  /** The outcome of one request: documents placed in {@code out}, the rest to ask again. */
  private static final class Attempt {
    int server = -1;
    DocClientException failure;
    long[] retryIds = new long[0];
    int[] retryPos = new int[0];
    String retryReason;
    long[] notSentIds = new long[0];
    int[] notSentPos = new int[0];
  }

  private Attempt attempt(long[] ids, int[] positions, Document[] out, int base, int avoid) {
    return call(acquire(avoid, System.nanoTime() + requestTimeoutNanos), ids, positions, out, base);
  }

  /** One request on an acquired {@code slot} (released here), within the request timeout. */
  private Attempt call(int slot, long[] ids, int[] positions, Document[] out, int base) {
    Attempt a = new Attempt();
    long deadline = System.nanoTime() + requestTimeoutNanos;
    a.server = slots.serverOf(slot);
    ServerConnection conn = servers[a.server];
    RpcResponse r;
    try {
      r = conn.call(requestIds.incrementAndGet(), ids, 0, ids.length, deadline - System.nanoTime());
    } catch (TimeoutException e) {
      a.failure = new DocClientException("no response from " + conn.address() + " in time");
      return a;
    } catch (IOException e) {
      a.failure = new DocClientException(e.getMessage(), e);
      return a;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DocClientException("interrupted");
    } finally {
      slots.release(slot);
    }
    if (r.isError()) {
      String msg = conn.address() + ": " + RpcFormat.errorName(r.errorCode()) + ": " + r.message();
      if (r.errorCode() == RpcFormat.ERR_OVERLOADED
          || r.errorCode() == RpcFormat.ERR_SHUTTING_DOWN) {
        a.failure = new DocClientException(msg);
        return a;
      }
      throw new DocClientException(msg);
    }
    if (r.count() != ids.length) {
      a.failure =
          new DocClientException(conn.address() + " answered " + r.count() + " of " + ids.length);
      return a;
    }
    List<Integer> retry = new ArrayList<>();
    List<Integer> notSent = new ArrayList<>();
    for (int i = 0; i < ids.length; i++) {
      switch (r.status(i)) {
        case RpcFormat.STATUS_FOUND:
          out[base + positions[i]] =
              new Document(ids[i], r.sequence(i), r.acceptedAtMillis(i), r.body(i));
          break;
        case RpcFormat.STATUS_MISSING:
          out[base + positions[i]] = null;
          break;
        case RpcFormat.STATUS_NOT_SENT:
          notSent.add(i);
          break;
        default:
          retry.add(i);
          a.retryReason =
              conn.address()
                  + ": document "
                  + ids[i]
                  + ": "
                  + (r.status(i) == RpcFormat.STATUS_CORRUPT ? "corrupt: " : "error: ")
                  + r.message(i);
      }
    }
    a.retryIds = pick(ids, retry);
    a.retryPos = pickPos(positions, retry);
    a.notSentIds = pick(ids, notSent);
    a.notSentPos = pickPos(positions, notSent);
    return a;
  }

  private int acquire(int avoid, long deadline) {
    try {
      int slot = slots.acquire(avoid, deadline - System.nanoTime());
      if (slot < 0) {
        throw new DocClientException(
            "no free slot on a connected server within the request timeout (all busy or down: "
                + addresses()
                + ")");
      }
      return slot;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DocClientException("interrupted while waiting for a free slot");
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

  private static long[] pick(long[] ids, List<Integer> idx) {
    return idx.stream().mapToLong(i -> ids[i]).toArray();
  }

  private static int[] pickPos(int[] positions, List<Integer> idx) {
    return idx.stream().mapToInt(i -> positions[i]).toArray();
  }

  private static long[] concat(long[] a, long[] b) {
    long[] r = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, r, a.length, b.length);
    return r;
  }

  private static int[] concat(int[] a, int[] b) {
    int[] r = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, r, a.length, b.length);
    return r;
  }

  /** Closes every connection; callers waiting for a slot fail. */
  @Override
  public void close() {
    slots.close();
    for (ServerConnection s : servers) {
      s.close();
    }
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
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

    private Builder() {}

    /** The servers to spread reads over (primary and replicas); at least one. */
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

    /** Netty event loop threads (default 1). */
    public Builder ioThreads(int v) {
      ioThreads = v;
      return this;
    }

    /** Builds the client and starts connecting to every server in the background. */
    public DocClient build() {
      if (servers.isEmpty()) {
        throw new IllegalArgumentException("DocClient needs at least one server");
      }
      if (slotsPerServer <= 0 || maxIdsPerRequest <= 0 || ioThreads <= 0) {
        throw new IllegalArgumentException("slots, batch size and threads must be positive");
      }
      if (connectTimeout.isNegative()
          || connectTimeout.isZero()
          || requestTimeout.isNegative()
          || requestTimeout.isZero()) {
        throw new IllegalArgumentException("timeouts must be positive");
      }
      return new DocClient(this);
    }
  }
}
