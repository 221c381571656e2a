package io.docstore.client;

import io.docstore.client.DocClientException.Reason;
import io.docstore.client.wire.RpcFormat;
import io.docstore.client.wire.RpcResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One RPC request of a {@link DocClient} on a slot it acquired, and how the answer divides: the
 * documents placed, the IDs to ask another server (an error for that ID), the IDs the server did
 * not send (its response budget), or a failure of the whole request. Retries and the choice of
 * server stay with {@link DocClient}. Thread-safe.
 */
final class Requests {

  private final ServerConnection[] servers;
  private final SlotTable slots;
  private final long requestTimeoutNanos;
  private final AtomicLong requestIds = new AtomicLong();

  Requests(ServerConnection[] servers, SlotTable slots, long requestTimeoutNanos) {
    this.servers = servers;
    this.slots = slots;
    this.requestTimeoutNanos = requestTimeoutNanos;
  }

  /** The ID of the newest request (it spreads rounds over the servers). */
  long lastId() {
    return requestIds.get();
  }

  /** The outcome of one request: documents placed in {@code out}, the rest to ask again. */
  static final class Attempt {
    int server = -1;
    DocClientException failure;
    long[] retryIds = new long[0];
    int[] retryPos = new int[0];
    String retryReason;
    long[] notSentIds = new long[0];
    int[] notSentPos = new int[0];
  }

  /**
   * One request on an acquired {@code slot} (released here), within the request timeout: GET_MANY,
   * or GET_MANY_GROUP for {@code group}'s projections when it is not null.
   */
  Attempt call(int slot, String group, long[] ids, int[] positions, Document[] out, int base) {
    Attempt a = new Attempt();
    long deadline = System.nanoTime() + requestTimeoutNanos;
    a.server = slots.serverOf(slot);
    ServerConnection conn = servers[a.server];
    RpcResponse r;
    try {
      r =
          conn.call(
              requestIds.incrementAndGet(),
              group,
              ids,
              0,
              ids.length,
              deadline - System.nanoTime());
    } catch (TimeoutException e) {
      a.failure =
          new DocClientException(
              Reason.TIMEOUT,
              "no response from "
                  + conn.address()
                  + " within "
                  + TimeUnit.NANOSECONDS.toMillis(requestTimeoutNanos)
                  + " ms");
      return a;
    } catch (IOException e) {
      a.failure = new DocClientException(Reason.UNREACHABLE, e.getMessage(), e);
      return a;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DocClientException(Reason.INTERRUPTED, "interrupted");
    } finally {
      slots.release(slot);
    }
    if (r.isError()) {
      int code = r.errorCode();
      String msg = conn.address() + ": " + RpcFormat.errorName(code) + ": " + r.message();
      if (code == RpcFormat.ERR_OVERLOADED || code == RpcFormat.ERR_SHUTTING_DOWN) {
        a.failure = new DocClientException(Reason.SERVER_ERROR, msg, 0, r.message(), null);
        return a;
      }
      throw new DocClientException(errorReason(code), msg, 0, r.message(), null);
    }
    if (r.count() != ids.length) {
      a.failure =
          new DocClientException(
              Reason.SERVER_ERROR, conn.address() + " answered " + r.count() + " of " + ids.length);
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

  /** The reason an RPC ERROR frame that is not retried elsewhere stands for. */
  private static Reason errorReason(int code) {
    switch (code) {
      case RpcFormat.ERR_TOO_MANY_IDS:
      case RpcFormat.ERR_FRAME_TOO_LARGE:
        return Reason.TOO_LARGE;
      case RpcFormat.ERR_INTERNAL:
        return Reason.SERVER_ERROR;
      case RpcFormat.ERR_WRONG_SHARD:
        return Reason.WRONG_SHARD;
      case RpcFormat.ERR_UNKNOWN_GROUP: // the request names a group the server lacks
      default:
        return Reason.REJECTED;
    }
  }

  private static long[] pick(long[] ids, List<Integer> idx) {
    return idx.stream().mapToLong(i -> ids[i]).toArray();
  }

  private static int[] pickPos(int[] positions, List<Integer> idx) {
    return idx.stream().mapToInt(i -> positions[i]).toArray();
  }

  static long[] concat(long[] a, long[] b) {
    long[] r = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, r, a.length, b.length);
    return r;
  }

  static int[] concat(int[] a, int[] b) {
    int[] r = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, r, a.length, b.length);
    return r;
  }
}
