package io.docstore.client;

import io.docstore.client.DocClientException.Reason;
import io.docstore.client.wire.RpcFormat;
import io.docstore.client.wire.RpcFrames;
import io.docstore.client.wire.RpcResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One RPC request of a {@link DocClient} on a slot it acquired, and how the answer divides: for a
 * read, the documents placed, the IDs to ask another server (an error for that ID), the IDs the
 * server did not send (its response budget), or a failure of the whole request; for a POSITION, the
 * partition's next offset there, or the failure. Retries and the choice of server stay with {@link
 * DocClient}. Thread-safe.
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

  /** A frame sent on a slot and what came of it: the response, or the failure of the request. */
  private record Sent(RpcResponse response, DocClientException failure) {}

  /**
   * Sends {@code frame} (request id {@code requestId}) on an acquired {@code slot}, released here,
   * and waits for the answer within the request timeout; a timeout or a lost connection is a
   * failure.
   */
  private Sent send(int slot, long requestId, ServerConnection.Frame frame) {
    ServerConnection conn = servers[slots.serverOf(slot)];
    RpcResponse r;
    try {
      r = conn.call(requestId, frame, requestTimeoutNanos);
    } catch (TimeoutException e) {
      return new Sent(
          null,
          new DocClientException(
              Reason.TIMEOUT,
              "no response from "
                  + conn.address()
                  + " within "
                  + TimeUnit.NANOSECONDS.toMillis(requestTimeoutNanos)
                  + " ms"));
    } catch (IOException e) {
      return new Sent(null, new DocClientException(Reason.UNREACHABLE, e.getMessage(), e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DocClientException(Reason.INTERRUPTED, "interrupted");
    } finally {
      slots.release(slot);
    }
    return new Sent(r, null);
  }

  /**
   * Null for an answer; for an ERROR frame that another server may answer better (overloaded,
   * shutting down), the failure; any other ERROR frame is thrown.
   */
  private static DocClientException refusal(ServerConnection conn, RpcResponse r) {
    if (!r.isError()) {
      return null;
    }
    int code = r.errorCode();
    String msg = conn.address() + ": " + RpcFormat.errorName(code) + ": " + r.message();
    if (code == RpcFormat.ERR_OVERLOADED || code == RpcFormat.ERR_SHUTTING_DOWN) {
      return new DocClientException(Reason.SERVER_ERROR, msg, 0, r.message(), null);
    }
    throw new DocClientException(errorReason(code), msg, 0, r.message(), null);
  }

  /**
   * One request on an acquired {@code slot} (released here), within the request timeout: GET_MANY,
   * or GET_MANY_GROUP for {@code group}'s projections when it is not null.
   */
  Attempt call(int slot, String group, long[] ids, int[] positions, Document[] out, int base) {
    Attempt a = new Attempt();
    a.server = slots.serverOf(slot);
    ServerConnection conn = servers[a.server];
    long id = requestIds.incrementAndGet();
    Sent sent =
        send(
            slot,
            id,
            alloc ->
                group == null
                    ? RpcFrames.getMany(alloc, id, ids, 0, ids.length)
                    : RpcFrames.getManyGroup(alloc, id, group, ids, 0, ids.length));
    a.failure = sent.failure() != null ? sent.failure() : refusal(conn, sent.response());
    if (a.failure != null) {
      return a;
    }
    RpcResponse r = sent.response();
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

  /** What one POSITION request answered: the partition's next offset there, or why it failed. */
  record Position(long next, DocClientException failure) {}

  /**
   * POSITION for {@code partition} on an acquired {@code slot} (released here): how far reads on
   * that server see the partition of the update log.
   *
   * @throws DocClientException {@link Reason#REJECTED} from a server that predates POSITION ({@code
   *     bad_opcode}), naming it
   */
  Position position(int slot, int partition) {
    ServerConnection conn = servers[slots.serverOf(slot)];
    long id = requestIds.incrementAndGet();
    Sent sent = send(slot, id, alloc -> RpcFrames.position(alloc, id, partition));
    if (sent.failure() != null) {
      return new Position(-1, sent.failure());
    }
    RpcResponse r = sent.response();
    if (r.isError() && r.errorCode() == RpcFormat.ERR_BAD_OPCODE) {
      throw new DocClientException(
          Reason.REJECTED,
          conn.address()
              + " does not answer POSITION (bad_opcode: "
              + r.message()
              + "): it predates read-your-writes by log position (docs/formats/rpc.md);"
              + " upgrade it, or leave it out of this client's servers",
          0,
          r.message(),
          null);
    }
    DocClientException refused = refusal(conn, r);
    if (refused != null) {
      return new Position(-1, refused);
    }
    if (!r.isPosition() || r.partition() != partition) {
      return new Position(
          -1,
          new DocClientException(
              Reason.SERVER_ERROR,
              conn.address()
                  + " answered POSITION for partition "
                  + partition
                  + (r.isPosition() ? " about partition " + r.partition() : " with documents")));
    }
    return new Position(r.nextOffset(), null);
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
